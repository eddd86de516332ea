"""The storage service's list rules: paging, filters, ordering, `meta` links, schema."""

from __future__ import annotations

from datetime import datetime
from types import SimpleNamespace
from urllib.parse import parse_qsl, urlsplit

import pytest

from simulator.tastypie_lists import (
    ALL,
    ALL_WITH_RELATIONS,
    MAX_LIMIT,
    FieldSpec,
    ListQueryError,
    ResourceSpec,
    page_meta,
    parse_filters,
    parse_limit,
    parse_list_query,
    parse_offset,
    select_page,
)


def attr(name):
    return lambda obj: getattr(obj, name)


SHELF = ResourceSpec(
    "shelf",
    (
        FieldSpec("uuid", kind="uuid", getter=attr("uuid"), filtering=ALL),
        FieldSpec("label", getter=attr("label"), filtering=ALL),
    ),
)
OWNER = ResourceSpec(
    "owner",
    (
        FieldSpec("uuid", kind="uuid", getter=attr("uuid"), filtering=ALL),
        FieldSpec("name", getter=attr("name"), filtering=ALL),
        FieldSpec("secret", getter=attr("secret"), hidden=True),
    ),
)
BOX = ResourceSpec(
    "box",
    (
        FieldSpec("uuid", kind="uuid", getter=attr("uuid"), filtering=ALL),
        FieldSpec("label", getter=attr("label"), filtering=ALL),
        FieldSpec("weight", kind="integer", getter=attr("weight"), filtering=ALL, nullable=True),
        FieldSpec("sealed", kind="boolean", getter=attr("sealed")),
        FieldSpec("packed", kind="datetime", getter=attr("packed"), filtering=ALL, nullable=True),
        FieldSpec(
            "shelf",
            kind="related",
            getter=attr("shelf"),
            filtering=ALL_WITH_RELATIONS,
            related="shelf",
            related_type="to_one",
        ),
        FieldSpec(
            "owners",
            kind="related",
            getter=attr("owners"),
            filtering=ALL_WITH_RELATIONS,
            related="owner",
            related_type="to_many",
        ),
        FieldSpec("colour", getter=attr("colour"), filtering=["exact"]),
        FieldSpec("note", getter=attr("note"), filtering=ALL),
    ),
)
REGISTRY = {spec.name: spec for spec in (SHELF, OWNER, BOX)}

TOP = SimpleNamespace(uuid="11111111-1111-4111-8111-111111111111", label="Top shelf")
LOW = SimpleNamespace(uuid="22222222-2222-4222-8222-222222222222", label="Low shelf")
ANNA = SimpleNamespace(uuid="33333333-3333-4333-8333-333333333333", name="Anna", secret="x")
BEN = SimpleNamespace(uuid="44444444-4444-4444-8444-444444444444", name="Ben", secret="y")


def box(number, *, weight, shelf, owners, packed=None, colour="red", note="plain"):
    return SimpleNamespace(
        uuid=f"{number:08d}-0000-4000-8000-000000000000",
        label=f"Box {number}",
        weight=weight,
        sealed=number % 2 == 0,
        packed=packed,
        shelf=shelf,
        owners=owners,
        colour=colour,
        note=note,
    )


BOXES = [
    box(1, weight=5, shelf=TOP, owners=[ANNA], packed=datetime(2024, 3, 1, 10, 0)),
    box(2, weight=50, shelf=TOP, owners=[ANNA, BEN], packed=datetime(2025, 6, 1, 9, 30)),
    box(3, weight=None, shelf=LOW, owners=[], colour="blue", note="Fragile GLASS"),
    box(4, weight=500, shelf=LOW, owners=[BEN], packed=datetime(2026, 1, 2, 0, 0)),
]


def matching(query: str) -> list[str]:
    filters = parse_filters(BOX, REGISTRY, parse_qsl(query, keep_blank_values=True))
    page, _total = select_page(BOXES, filters, offset=0, limit=100)
    return [item.label for item in page]


def test_it_pages_by_20_unless_told_otherwise():
    assert parse_limit([]) == 20
    assert parse_limit([("limit", "7")]) == 7


def test_it_reads_limit_zero_and_huge_limits_as_the_maximum():
    assert parse_limit([("limit", "0")]) == MAX_LIMIT
    assert parse_limit([("limit", "5000")]) == MAX_LIMIT


def test_it_uses_the_last_limit_when_one_is_repeated():
    assert parse_limit([("limit", "3"), ("limit", "9")]) == 9


def test_it_rejects_a_limit_that_is_not_a_number():
    with pytest.raises(ListQueryError) as caught:
        parse_limit([("limit", "abc")])
    assert str(caught.value) == "Invalid limit 'abc' provided. Please provide a positive integer."


def test_it_rejects_a_negative_offset_with_the_escaped_message():
    with pytest.raises(ListQueryError) as caught:
        parse_offset([("offset", "-1")])
    assert (
        str(caught.value)
        == "Invalid offset '-1' provided. Please provide a positive integer &gt;= 0."
    )


def test_it_rejects_an_offset_that_is_not_a_number():
    with pytest.raises(ListQueryError, match="Invalid offset 'x'"):
        parse_offset([("offset", "x")])


def test_it_filters_on_exact_values_and_comma_lists():
    assert matching("label=Box 2") == ["Box 2"]
    assert matching("label__in=Box 1,Box 4") == ["Box 1", "Box 4"]


def test_it_filters_text_case_insensitively_when_asked():
    assert matching("note__icontains=glass") == ["Box 3"]
    assert matching("note__contains=glass") == []
    assert matching("label__startswith=Box 1") == ["Box 1"]


def test_it_compares_numbers_and_skips_nulls():
    assert matching("weight__gt=5") == ["Box 2", "Box 4"]
    assert matching("weight__lte=50") == ["Box 1", "Box 2"]
    assert matching("weight__isnull=true") == ["Box 3"]


def test_it_compares_dates_given_as_a_day_or_a_timestamp():
    assert matching("packed__gte=2025-01-01") == ["Box 2", "Box 4"]
    assert matching("packed__lt=2025-06-01T09:30:00") == ["Box 1"]


def test_it_filters_on_a_related_object_by_uuid():
    assert matching(f"shelf={LOW.uuid}") == ["Box 3", "Box 4"]
    assert matching(f"shelf__uuid={TOP.uuid}") == ["Box 1", "Box 2"]


def test_it_refuses_a_resource_uri_as_the_value_of_a_related_field():
    uri = f"/api/v2/shelf/{TOP.uuid}/"
    with pytest.raises(ListQueryError) as caught:
        matching(f"shelf={uri}")
    assert str(caught.value) == f"['\u201c{uri}\u201d is not a valid UUID.']"


def test_it_compares_parts_of_a_date():
    assert matching("packed__year=2025") == ["Box 2"]
    assert matching("packed__month=1") == ["Box 4"]
    assert matching("packed__hour=10") == ["Box 1"]
    with pytest.raises(ListQueryError, match="mismatched type"):
        matching("weight__year=2025")


def test_it_filters_across_a_to_many_relation():
    assert matching(f"owners__uuid={BEN.uuid}") == ["Box 2", "Box 4"]
    assert matching("owners__name__icontains=ann") == ["Box 1", "Box 2"]


def test_it_ignores_parameters_that_are_not_fields():
    assert matching("bogus=1&format=json&username=demo") == ["Box 1", "Box 2", "Box 3", "Box 4"]


def test_it_refuses_fields_that_do_not_allow_filtering():
    with pytest.raises(ListQueryError) as caught:
        matching("sealed=true")
    assert str(caught.value) == "The 'sealed' field does not allow filtering."


def test_it_refuses_a_hidden_field_of_a_related_resource():
    with pytest.raises(ListQueryError, match="The 'secret' field does not allow filtering."):
        matching("owners__secret=x")


def test_it_refuses_lookups_a_field_does_not_list():
    with pytest.raises(
        ListQueryError, match="'in' is not an allowed filter on the 'colour' field."
    ):
        matching("colour__in=red,blue")


def test_it_refuses_to_follow_a_field_that_is_not_a_relation():
    with pytest.raises(ListQueryError, match="more than one level deep on the 'label' field"):
        matching("label__name=x")


def test_it_answers_a_malformed_uuid_like_the_service():
    with pytest.raises(ListQueryError) as caught:
        matching("uuid=not-a-uuid")
    assert str(caught.value) == "['\u201cnot-a-uuid\u201d is not a valid UUID.']"


def test_it_rejects_a_number_filter_with_a_word():
    with pytest.raises(ListQueryError, match="mismatched type"):
        matching("weight__gt=heavy")


def test_it_refuses_ordering_on_any_field():
    with pytest.raises(ListQueryError) as caught:
        parse_list_query(BOX, REGISTRY, [("order_by", "-weight")])
    assert str(caught.value) == "The 'weight' field does not allow ordering."
    with pytest.raises(ListQueryError, match="No matching 'nothing' field for ordering on."):
        parse_list_query(BOX, REGISTRY, [("order_by", "nothing")])


def test_it_reports_a_bad_filter_before_a_bad_limit():
    with pytest.raises(ListQueryError, match="does not allow filtering"):
        parse_list_query(BOX, REGISTRY, [("limit", "abc"), ("sealed", "true")])


def test_it_counts_every_match_but_returns_only_the_page():
    filters = parse_filters(BOX, REGISTRY, [("weight__gte", "5")])
    page, total = select_page(BOXES, filters, offset=1, limit=1)
    assert [item.label for item in page] == ["Box 2"]
    assert total == 3


def test_it_walks_only_the_page_when_the_total_is_known():
    def endless():
        number = 0
        while True:
            number += 1
            yield number

    page, total = select_page(endless(), [], offset=10, limit=3, total=10**9)
    assert page == [11, 12, 13]
    assert total == 10**9


def query_of(uri: str) -> list[tuple[str, str]]:
    return parse_qsl(urlsplit(uri).query, keep_blank_values=True)


def test_it_links_pages_relatively_and_keeps_the_whole_query():
    pairs = [
        ("status__in", "UPLOADED,FAIL"),
        ("offset", "2"),
        ("username", "demo"),
        ("api_key", "k"),
        ("limit", "2"),
    ]
    meta = page_meta("/api/v2/file/", pairs, limit=2, offset=2, total=7)
    assert meta["next"].startswith("/api/v2/file/?")
    assert query_of(meta["next"]) == [
        ("status__in", "UPLOADED,FAIL"),
        ("username", "demo"),
        ("api_key", "k"),
        ("limit", "2"),
        ("offset", "4"),
    ]
    assert query_of(meta["previous"])[-2:] == [("limit", "2"), ("offset", "0")]
    assert (meta["limit"], meta["offset"], meta["total_count"]) == (2, 2, 7)


def test_it_has_no_previous_page_before_a_full_page_and_no_next_at_the_end():
    first = page_meta("/api/v2/file/", [], limit=20, offset=0, total=20)
    assert first["previous"] is None
    assert first["next"] is None
    shifted = page_meta("/api/v2/file/", [], limit=20, offset=5, total=100)
    assert shifted["previous"] is None


def test_it_points_back_from_beyond_the_end():
    meta = page_meta(
        "/api/v2/file/", [("limit", "2"), ("offset", "100")], limit=2, offset=100, total=5
    )
    assert meta["next"] is None
    assert query_of(meta["previous"]) == [("limit", "2"), ("offset", "98")]


def test_it_describes_a_resource_in_its_schema():
    schema = BOX.schema()
    assert schema["default_limit"] == 20
    assert schema["default_format"] == "application/json"
    assert schema["allowed_list_http_methods"] == ["get"]
    assert list(schema["fields"]) == sorted(schema["fields"])
    assert schema["fields"]["shelf"]["related_type"] == "to_one"
    assert schema["fields"]["owners"]["related_schema"] == "/api/v2/owner/schema/"
    assert schema["fields"]["weight"]["type"] == "integer"
    assert schema["fields"]["uuid"]["type"] == "string"
    assert schema["filtering"]["shelf"] == ALL_WITH_RELATIONS
    assert "sealed" not in schema["filtering"]
