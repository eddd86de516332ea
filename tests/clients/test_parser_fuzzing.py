"""Property-based fuzzing of both clients' parsers (hypothesis): whatever JSON shape an
upstream service sends, a parser gives its typed result or MalformedPayload, and a client
method its typed result or the client's own error, never any other exception."""

from __future__ import annotations

import contextlib
import inspect
import json
import re
import string
from collections.abc import Callable
from typing import Any

import pytest
import responses
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dashboard.clients import storage as storage_module
from dashboard.clients import workflow as workflow_module
from dashboard.clients.base import MalformedPayload
from dashboard.clients.storage import StorageClient, StorageError
from dashboard.clients.workflow import UnitKind, WorkflowClient, WorkflowError
from tests.clients.conftest import KEY, STORAGE_URL, USER, WORKFLOW_URL

UUID = "6b3a1f52-4c2e-4c8e-9d2f-0a1b2c3d4e5f"
FUZZ = settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Values that look like what the services send, and what they should not.
scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
    st.sampled_from(
        [
            UUID,
            "2026-03-01T09:00:00",
            "2026-03-01T09:00:00.123456Z",
            "2026-02-30T25:61:00",
            "/api/v2/location/" + UUID + "/",
            "/api/v2/pipeline/not-a-uuid/",
            "COMPLETE",
            "FAILED",
            "USER_INPUT",
            "UPLOADED",
            "AIP",
            "AS",
            "1024",
            "-5",
            "< 1",
            "",
            "\x00",
        ]
    ),
)
json_values = st.recursive(
    scalars,
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(string.ascii_lowercase + "_", max_size=12), children, max_size=5)
    ),
    max_leaves=12,
)


def keys_of(parse: Callable[..., Any]) -> list[str]:
    """The field names a parser reads, taken from its source, so that the fuzzer builds
    objects with the right keys and wrong, missing or odd values."""
    source = inspect.getsource(parse)
    return sorted(set(re.findall(r"[\"']([a-z][a-z_]*)[\"']", source)))


def shaped(parse: Callable[..., Any]) -> st.SearchStrategy[Any]:
    keys = keys_of(parse)
    objects = st.fixed_dictionaries({}, optional={key: json_values for key in keys})
    return st.one_of(objects, json_values, st.lists(objects, max_size=3))


def parsers(module: Any) -> dict[str, Callable[[Any], Any]]:
    found: dict[str, Callable[[Any], Any]] = {}
    for name, cls in vars(module).items():
        parse = getattr(cls, "from_api", None)
        if not inspect.isclass(cls) or parse is None or cls.__module__ != module.__name__:
            continue
        params = list(inspect.signature(parse).parameters)
        if params == ["data"]:
            found[name] = parse
        elif params == ["data", "kind"]:
            found[name] = lambda data, parse=parse: parse(data, kind=UnitKind.TRANSFER)
        elif params == ["data", "property_keys_encoded"]:
            found[name] = lambda data, parse=parse: parse(data, property_keys_encoded=True)
        elif params[0] in {"path", "resource"}:
            found[name] = lambda data, parse=parse: parse("objects/a.txt", data)
    return found


PARSERS = {**parsers(workflow_module), **parsers(storage_module)}


def test_every_parser_is_fuzzed():
    assert {"UnitStatus", "Job", "Task", "WaitingUnit", "Package", "Location", "Space"} <= set(
        PARSERS
    )
    assert len(PARSERS) >= 20


@pytest.mark.parametrize("name", sorted(PARSERS))
def test_a_parser_gives_its_result_or_malformed_payload(name):
    parse = PARSERS[name]
    target = getattr(workflow_module, name, None) or getattr(storage_module, name)

    @FUZZ
    @given(shaped(target.from_api))
    def check(data: Any) -> None:
        try:
            result = parse(data)
        except MalformedPayload:
            return
        assert isinstance(result, target)

    check()


def test_what_the_fuzzer_found_a_status_that_is_not_a_string():
    # Both raised TypeError (unhashable list) before the parsers checked the type.
    job = workflow_module.Job.from_api(
        {"uuid": UUID, "status": [], "name": "x", "microservice": "y"}
    )
    assert job.status is workflow_module.JobStatus.UNKNOWN
    with pytest.raises(MalformedPayload):
        workflow_module.UnitStatus.from_api({"status": []}, kind=UnitKind.TRANSFER)


# --- whole client methods over mocked HTTP ---------------------------------------------

bodies = st.one_of(
    json_values.map(json.dumps),
    st.sampled_from(["", "not json", "<html>oops</html>", "{", "[1, 2", "null", "\ufeff{}"]),
)
statuses = st.sampled_from([200, 200, 200, 201, 202, 204, 301, 400, 401, 403, 404, 500, 502])

WORKFLOW_CALLS: dict[str, tuple[str, Callable[[WorkflowClient], Any]]] = {
    "transfer status": (
        f"/api/transfer/status/{UUID}/",
        lambda c: c.get_transfer_status(UUID),
    ),
    "unapproved": ("/api/transfer/unapproved/", lambda c: c.list_unapproved_transfers()),
    "waiting": ("/api/ingest/waiting/", lambda c: c.list_waiting()),
    "completed": ("/api/transfer/completed/", lambda c: c.list_completed_transfers()),
}
STORAGE_CALLS: dict[str, tuple[str, Callable[[StorageClient], Any]]] = {
    "package": (f"/api/v2/file/{UUID}/", lambda c: c.get_package(UUID)),
    "packages page": ("/api/v2/file/", lambda c: c.list_packages_page(offset=0, limit=20)),
    "browse": (f"/api/v2/location/{UUID}/browse/", lambda c: c.browse_location(UUID)),
    "contents": (f"/api/v2/file/{UUID}/contents/", lambda c: c.get_package_contents(UUID)),
}


def fuzz_client(base: str, path: str, call: Callable[[], Any], error: type[Exception]) -> None:
    @settings(FUZZ, max_examples=40)
    @given(body=bodies, status=statuses)
    def check(body: str, status: int) -> None:
        with responses.RequestsMock(assert_all_requests_are_fired=False) as mocked:
            mocked.add(
                responses.GET,
                re.compile(re.escape(base + path) + ".*"),
                body=body,
                status=status,
                content_type="application/json",
            )
            with contextlib.suppress(error):  # the client's own error: what callers handle
                call()

    check()


@pytest.mark.parametrize("name", sorted(WORKFLOW_CALLS))
def test_a_workflow_call_gives_its_result_or_a_workflow_error(name, sleeps):
    path, call = WORKFLOW_CALLS[name]
    client = WorkflowClient(WORKFLOW_URL, USER, KEY)
    fuzz_client(WORKFLOW_URL, path, lambda: call(client), WorkflowError)


@pytest.mark.parametrize("name", sorted(STORAGE_CALLS))
def test_a_storage_call_gives_its_result_or_a_storage_error(name, sleeps):
    path, call = STORAGE_CALLS[name]
    client = StorageClient(STORAGE_URL, USER, KEY)
    fuzz_client(STORAGE_URL, path, lambda: call(client), StorageError)
