from __future__ import annotations

import pytest

from dashboard import tasks
from dashboard.services import storage as storage_services
from tests.storage.fakes import FakeStorageClient
from tests.support.users import make_user


@pytest.fixture
def fake(monkeypatch) -> FakeStorageClient:
    """A seeded fake storage service, handed out wherever Lookout builds a client."""
    client = FakeStorageClient.seeded()
    monkeypatch.setattr(storage_services, "get_storage_client", lambda: client)
    return client


@pytest.fixture
def viewer(db):
    return make_user("vera", "viewer", email="vera@example.org")


@pytest.fixture
def operator(db):
    return make_user("otto", "operator", email="otto@example.org")


@pytest.fixture
def admin_user(db):
    return make_user("ada", "admin", email="ada@example.org")


@pytest.fixture
def no_role(db):
    return make_user("nobody", email="nobody@example.org")


@pytest.fixture(autouse=True)
def queued(monkeypatch) -> list[tuple[str, tuple]]:
    """Celery tasks the code under test enqueued, recorded instead of sent to a broker."""

    sent: list[tuple[str, tuple]] = []
    for task in (
        tasks.check_package_fixity,
        tasks.fetch_package_details,
        tasks.fetch_location_listing,
        tasks.poll_storage,
    ):
        monkeypatch.setattr(
            task, "delay", lambda *args, _name=task.name: sent.append((_name, args))
        )
    return sent


@pytest.fixture
def polled(fake):
    """The fake storage service with a few packages, polled once into Lookout."""
    from tests.storage.fakes import AIP_STORE_2, BACKLOG, DIP_STORE, make_package, package_uuid

    fake.add(
        make_package(1, name="board-minutes-001", related=(package_uuid(2),)),
        make_package(
            2,
            package_type="DIP",
            location=DIP_STORE,
            name="board-minutes-001",
            related=(package_uuid(1),),
        ),
        make_package(3, name="field-notes-002", location=AIP_STORE_2, size=5_000_000),
        make_package(4, package_type="transfer", location=BACKLOG, name="oral-history-003"),
        make_package(5, status="DEL_REQ", name="maps-004"),
    )
    storage_services.storage_poll()
    return fake


@pytest.fixture
def browsable(polled):
    """The polled fake, with a few folders of the transfer source to browse."""
    from tests.storage.fakes import TRANSFER_SOURCE, browse_listing

    polled.listings[TRANSFER_SOURCE] = {
        b"": browse_listing(
            {
                "transfer-1": {"object count": 3},
                "large-image-series": {"object count": "5000+"},
                "dir with space": {"object count": 1},
                "<script>alert(3)</script>": {"object count": 0},
                "readme.txt": {"size": 2048},
            }
        ),
        b"legacy": browse_listing(
            {b"caf\xe9-menu.txt": {"size": 512}, "ordinary.txt": {"size": 10}}
        ),
        b"transfer-1": browse_listing({"objects": {"object count": 2}}),
        b"transfer-1/objects": browse_listing({"\u00e9-file.txt": {"size": 11}}),
    }
    return polled
