from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import DatabaseError
from django.utils import timezone

from dashboard.services import freshness as freshness_services
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


def record(service: str, *, ok: bool, ago: timedelta, error: str = "") -> None:
    freshness_services.service_poll_record(
        service=service,
        started_at=timezone.now() - ago,
        ok=ok,
        error=error,
        duration_ms=5,
        requests=1,
    )


def test_it_answers_200_when_every_poller_succeeded_recently(client):
    record("workflow:default", ok=True, ago=timedelta(seconds=5))
    record("storage", ok=True, ago=timedelta(seconds=30))

    response = client.get("/healthz")

    assert response.status_code == 200
    body = response.json()
    assert body["ok"] is True
    assert body["checks"]["database"]["ok"] and body["checks"]["cache"]["ok"]


def test_it_answers_503_naming_the_poller_that_fell_behind(client):
    record("workflow:default", ok=True, ago=timedelta(minutes=10))
    record("workflow:default", ok=False, ago=timedelta(seconds=5), error="connection refused")
    record("storage", ok=True, ago=timedelta(seconds=30))

    response = client.get("/healthz")

    assert response.status_code == 503
    check = response.json()["checks"]["poll:workflow:default"]
    assert check["ok"] is False
    assert "connection refused" not in check["reason"]
    assert response.json()["checks"]["poll:storage"]["ok"] is True


def test_it_gives_the_last_error_only_to_someone_with_a_role(client):
    record("workflow:default", ok=False, ago=timedelta(seconds=5), error="connection refused")
    client.force_login(make_user("vera", "viewer"))

    check = client.get("/healthz").json()["checks"]["poll:workflow:default"]

    assert check["reason"] == "has never succeeded; last error: connection refused"


def test_it_keeps_a_database_error_text_from_anonymous_callers(client, monkeypatch):
    def broken_cursor():
        raise DatabaseError("could not connect to server db.internal:5432")

    monkeypatch.setattr("dashboard.selectors.health.connection.cursor", broken_cursor)

    check = client.get("/healthz").json()["checks"]["database"]

    assert check == {"ok": False, "reason": "no answer"}


def test_it_answers_503_before_any_poll_has_run(client):
    response = client.get("/healthz")

    assert response.status_code == 503
    assert "never succeeded" in response.json()["checks"]["poll:storage"]["reason"]


def test_it_needs_no_login_and_is_never_cached(client):
    response = client.get("/healthz")

    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
