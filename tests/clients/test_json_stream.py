"""The streamed reader of a large JSON object's array: the same values as `json.loads`,
however the answer is cut into chunks, and a clear error for anything else."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dashboard.clients.json_stream import MalformedJSON, iter_array_items

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**20), max_value=10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


def cut(data: bytes, size: int) -> list[bytes]:
    return [data[start : start + size] for start in range(0, len(data), size)]


def read(data: bytes, size: int, key: str = "objects") -> tuple[list, dict]:
    others: dict = {}
    items = list(iter_array_items(cut(data, size), key, others=others))
    return items, others


@settings(max_examples=150, deadline=None)
@given(
    items=st.lists(json_values, max_size=6),
    before=st.dictionaries(st.sampled_from(["mcp", "total", "x"]), json_values, max_size=2),
    after=st.dictionaries(st.sampled_from(["mcp", "next", "y"]), json_values, max_size=2),
    size=st.integers(min_value=1, max_value=40),
    indent=st.sampled_from([None, 0, 2]),
)
def test_it_reads_what_json_loads_reads_however_the_answer_is_cut(
    items, before, after, size, indent
):
    document = {**before, "objects": items, **{k: v for k, v in after.items() if k not in before}}
    data = json.dumps(document, indent=indent, ensure_ascii=False).encode()

    found, others = read(data, size)

    assert found == items
    assert others == {k: v for k, v in document.items() if k != "objects"}


def test_a_multibyte_character_cut_between_chunks_is_kept_whole():
    data = json.dumps({"objects": ["Åbo – 北京 📦"], "mcp": True}, ensure_ascii=False).encode()

    for size in range(1, 8):
        assert read(data, size) == (["Åbo – 北京 📦"], {"mcp": True})


def test_the_job_servers_empty_object_in_place_of_the_list_yields_no_item():
    assert read(b'{"objects": {}, "mcp": false}', 3) == ([], {"objects": {}, "mcp": False})


def test_an_empty_object_and_an_empty_list_are_read():
    assert read(b"{}", 1) == ([], {})
    assert read(b' { "objects" : [ ] } ', 2) == ([], {})


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"[1, 2]",
        b'{"objects": [1, 2}',
        b'{"objects": [1 2]}',
        b'{"objects": [1, 2], "mcp": tru}',
        b'{"objects": [{"a": 1}, {"a": }], "mcp": true}',
        b'{"objects": [1, 2], "mcp": true',
        b'{"objects": [1, 2], "mcp": true} trailing',
        b'{"objects": ["never closed',
        b'{1: "a"}',
    ],
)
def test_anything_but_a_whole_object_is_malformed(data):
    for size in (1, 5, 1000):
        with pytest.raises(MalformedJSON):
            read(data, size)


def test_the_items_before_a_broken_one_are_given_first():
    chunks = cut(b'{"objects": [1, 2, oops]}', 4)
    found = []
    with pytest.raises(MalformedJSON):
        for item in iter_array_items(chunks, "objects", others={}):
            found.append(item)

    assert found == [1, 2]


def test_an_item_larger_than_allowed_is_refused_before_it_is_all_read():
    chunks_read = 0

    def endless():
        nonlocal chunks_read
        yield b'{"objects": ["'
        while True:
            chunks_read += 1
            yield b"x" * 1000

    with pytest.raises(MalformedJSON, match="longer than"):
        list(iter_array_items(endless(), "objects", others={}, max_item_chars=10_000))
    assert chunks_read < 20
