"""The clients' transport adapter, against the simulator over a real socket."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator

import pytest
import requests

from dashboard.clients.transport import KeptPoolAdapter
from dashboard.clients.workflow import WorkflowClient, WorkflowNotFound, WorkflowUnavailable
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


def test_an_answer_not_streamed_is_read_whole_as_the_adapter_returns_it(client):
    uuid = client.list_completed_transfers()[0]
    prepared = client._plain_get.copy()
    prepared.url = client._url(f"/api/transfer/status/{uuid}/")
    response = _adapter(client).send(prepared, timeout=client.timeout, verify=client.session.verify)
    assert response._content_consumed
    assert response.json()["uuid"] == uuid
    # Read to its end, the connection went back to the pool for the next call.
    (pool,) = _adapter(client)._pools.values()
    assert pool.pool.qsize() == pool.pool.maxsize


def test_a_streamed_answer_is_left_for_the_caller_to_read(client):
    uuid = client.list_completed_transfers()[0]
    prepared = client._plain_get.copy()
    prepared.url = client._url(f"/api/transfer/status/{uuid}/")
    response = _adapter(client).send(prepared, stream=True, timeout=client.timeout)
    assert not response._content_consumed
    assert response.json()["uuid"] == uuid


@pytest.fixture
def cut_short_server() -> Iterator[str]:
    """Answers every request with a body shorter than its Content-Length, then hangs up."""
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            with connection:
                connection.recv(65536)
                connection.sendall(
                    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                    b'Content-Length: 100\r\n\r\n{"status": '
                )

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    stop.set()
    thread.join()
    listener.close()


def test_a_body_cut_short_raises_what_requests_raises_for_one(cut_short_server):
    client = WorkflowClient(cut_short_server, "user", "key", retries=1)
    prepared = client._plain_get.copy()
    prepared.url = f"{cut_short_server}/api/transfer/status/x/"
    with pytest.raises(requests.exceptions.ChunkedEncodingError):
        _adapter(client).send(prepared, timeout=client.timeout)
    # And the client calls it an outage, as for any answer cut off.
    with pytest.raises(WorkflowUnavailable, match="could not connect"):
        client.get_transfer_status("00000000-0000-4000-8000-00000000abcd")
