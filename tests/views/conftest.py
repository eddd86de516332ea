from __future__ import annotations

import pytest
from django.test import Client

from tests.support.users import make_user


@pytest.fixture(autouse=True)
def _no_poll_enqueued(monkeypatch) -> list[str]:
    """Actions enqueue a poll on success; record it instead of touching a broker."""
    enqueued: list[str] = []
    monkeypatch.setattr("dashboard.tasks.poll_pipeline_enqueue", enqueued.append)
    return enqueued


def _client_for(role: str | None, name: str) -> Client:
    client = Client()
    client.force_login(make_user(name, role))
    return client


@pytest.fixture
def viewer(db) -> Client:
    return _client_for("viewer", "vera")


@pytest.fixture
def operator(db) -> Client:
    return _client_for("operator", "otto")


@pytest.fixture
def admin_client_(db) -> Client:
    return _client_for("admin", "ada")


@pytest.fixture
def no_role(db) -> Client:
    return _client_for(None, "nora")
