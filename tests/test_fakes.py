"""The fakes stand in for the real clients only while their public signatures match."""

from __future__ import annotations

import inspect

import pytest

from dashboard.clients.workflow import WorkflowClient
from tests.fakes import FakeWorkflowClient

FAKED = [
    name
    for name, member in inspect.getmembers(FakeWorkflowClient, inspect.isfunction)
    if not name.startswith("_") and name not in {"add", "count"}
]


def test_the_fake_covers_what_the_pollers_and_actions_call():
    assert {
        "list_unapproved_transfers",
        "list_waiting",
        "list_completed_transfers",
        "list_completed_ingests",
        "get_transfer_status",
        "get_ingest_status",
        "list_jobs",
        "approve_transfer",
        "hide_transfer",
        "hide_ingest",
    } <= set(FAKED)


@pytest.mark.parametrize("name", FAKED)
def test_each_faked_method_has_the_real_signature(name):
    real = inspect.signature(getattr(WorkflowClient, name))
    fake = inspect.signature(getattr(FakeWorkflowClient, name))

    assert list(fake.parameters) == list(real.parameters)
    for parameter in real.parameters.values():
        assert fake.parameters[parameter.name].kind == parameter.kind
        assert fake.parameters[parameter.name].default == parameter.default
