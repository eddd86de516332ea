"""The clients' transport adapter, against the simulator over a real socket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import requests

from dashboard.clients.transport import KeptPoolAdapter
from dashboard.clients.workflow import WorkflowClient, WorkflowNotFound
from tests.support.simulator_process import SimulatorProcess

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=3, packages=0, seed=5) as running:
        yield running


@pytest.fixture
def client(sim) -> WorkflowClient:
    return WorkflowClient(sim.workflow_url, sim.user, sim.key)


def _adapter(client: WorkflowClient) -> KeptPoolAdapter:
    adapter = client.session.get_adapter(client.base_url)
    assert isinstance(adapter, KeptPoolAdapter)
    return adapter


def test_status_calls_reuse_one_pool_and_one_connection(client):
    uuid = client.list_completed_transfers()[0]
    for _ in range(5):
        assert client.get_transfer_status(uuid).uuid == uuid
    pools = list(_adapter(client)._pools.values())
    assert len(pools) == 1
    assert pools[0].num_connections == 1


def test_a_closed_session_starts_afresh_with_a_new_pool(client):
    uuid = client.list_completed_transfers()[0]
    client.get_transfer_status(uuid)
    adapter = _adapter(client)
    (first,) = adapter._pools.values()
    client.session.close()
    assert client.get_transfer_status(uuid).uuid == uuid
    (second,) = adapter._pools.values()
    assert second is not first


def test_answers_read_as_with_requests_own_adapter(client, sim):
    uuid = client.list_completed_transfers()[0]
    path = f"/api/transfer/status/{uuid}/"
    ours = client.session.get(client._url(path), auth=client._auth)
    plain = requests.Session()
    plain.mount("http://", requests.adapters.HTTPAdapter())
    theirs = plain.get(client._url(path), auth=client._auth)
    assert (ours.status_code, ours.reason, ours.url, ours.encoding) == (
        theirs.status_code,
        theirs.reason,
        theirs.url,
        theirs.encoding,
    )
    assert ours.headers["Content-Type"] == theirs.headers["Content-Type"]
    assert ours.json() == theirs.json()


def test_an_error_answer_still_becomes_the_clients_own_error(client):
    with pytest.raises(WorkflowNotFound):
        client.get_transfer_status("00000000-0000-4000-8000-00000000abcd")
