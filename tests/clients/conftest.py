from __future__ import annotations

import pytest
import responses

from dashboard.clients.storage import StorageClient
from dashboard.clients.workflow import WorkflowClient

WORKFLOW_URL = "http://workflow.test"
STORAGE_URL = "http://storage.test"
USER = "demo"
# Long and distinctive, so a leak anywhere is easy to spot.
KEY = "k3y-never-in-logs-7f3a9c"


@pytest.fixture
def mocked():
    with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
        yield rsps


@pytest.fixture(autouse=True)
def sleeps(monkeypatch):
    """Backoff pauses, recorded instead of slept."""
    recorded: list[float] = []
    monkeypatch.setattr("dashboard.clients.base.time.sleep", recorded.append)
    return recorded


@pytest.fixture
def workflow():
    return WorkflowClient(WORKFLOW_URL, USER, KEY)


@pytest.fixture
def storage():
    return StorageClient(STORAGE_URL, USER, KEY)
