"""/api/v1/ingest-runs/: create (the folder checked through the storage service), read,
items, and the steering actions, with keys, audit rows and roles."""

from __future__ import annotations

import base64
import secrets

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from dashboard.models import AuditEntry, IngestItem, IngestRun, StorageSummary
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.integration]
URL = "/api/v1/ingest-runs/"


def _client(role: str | None, name: str) -> APIClient:
    client = APIClient()
    client.force_authenticate(make_user(name, role))
    return client


def _key() -> str:
    return "ingest-" + secrets.token_hex(10)


def _body(sim, **changes):
    return {
        "name": "Backlog 2026",
        "source_location": sim.location,
        "path": "batch",
        "pipelines": sim.slugs,
        "processing_config": {"p1": "automated", "p2": "default"},
        "accession": "2026-{n:04}",
        "max_in_flight": 3,
        "window": "19:00-07:00",
        **changes,
    }


def test_an_operator_creates_a_run_once_per_key_with_an_audit_row(sim):
    sim.add_items(b"batch", 3)
    client = _client("operator", "olga")
    key = _key()

    first = client.post(URL, _body(sim), format="json", HTTP_IDEMPOTENCY_KEY=key)
    again = client.post(URL, _body(sim), format="json", HTTP_IDEMPOTENCY_KEY=key)

    assert first.status_code == 201, first.json()
    assert again.status_code == 200
    assert first.json()["id"] == again.json()["id"]
    assert IngestRun.objects.count() == 1
    run = IngestRun.objects.get()
    assert run.processing_configs == {"p1": "automated", "p2": "default"}
    assert bytes(run.path) == b"batch"
    assert (run.window_start.hour, run.window_end.hour) == (19, 7)
    entry = AuditEntry.objects.get(action="ingest_run_create")
    assert entry.actor_name == "olga"
    assert entry.outcome == AuditEntry.Outcome.DONE
    detail = client.get(f"{URL}{run.pk}/").json()
    assert detail["status"] == "queued"
    assert detail["window"] == "19:00-07:00"
    assert detail["items_total"] == 0
    assert set(detail["counts"]) == set(IngestItem.State.values)
    assert {"started_at", "finished_at", "eta"} <= set(detail)


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"path": "no-such-folder"}, "path", "There is no folder"),
        ({"path": "batch/item-001/objects/a.txt"}, "path", "There is no folder"),
        ({"pipelines": ["p1", "nope"]}, "pipelines", "There is no pipeline nope"),
        ({"processing_config": "fancy"}, "processing_config", "no processing configuration"),
        ({"max_in_flight": 0}, "max_in_flight", "At least one"),
        ({"window": "7pm to 7am"}, "window", "HH:MM-HH:MM"),
        ({"window": "25:00-07:00"}, "window", "between 00:00 and 23:59"),
        ({"accession": "{year}-{n}"}, "accession", "only use {n} and {name}"),
        ({"depth": 3}, "depth", "1 (children) or 2"),
    ],
)
def test_bad_input_answers_400_with_a_clear_message(sim, changes, field, words):
    sim.add_items(b"batch", 2)
    response = _client("operator", "olga").post(
        URL, _body(sim, **changes), format="json", HTTP_IDEMPOTENCY_KEY=_key()
    )

    assert response.status_code == 400
    assert words in str(response.json()[field])
    assert IngestRun.objects.count() == 0
    assert not AuditEntry.objects.exists()


def test_an_empty_folder_is_refused(sim):
    sim.add_items(b"batch", 1)
    with sim.sim.lock:
        sim.sim.storage.source_trees[sim.location].make_dirs(b"empty-batch")
    response = _client("operator", "olga").post(
        URL, _body(sim, path="empty-batch"), format="json", HTTP_IDEMPOTENCY_KEY=_key()
    )

    assert response.status_code == 400
    assert "holds no folder" in response.json()["path"]


def test_a_raw_path_can_be_given_as_base64(sim):
    sim.add_items(b"batch", 1)
    body = _body(sim, path_b64=base64.b64encode(b"batch").decode())
    del body["path"]
    response = _client("operator", "olga").post(
        URL, body, format="json", HTTP_IDEMPOTENCY_KEY=_key()
    )
    assert response.status_code == 201


def test_a_viewer_reads_but_may_not_create_or_steer(sim):
    sim.add_items(b"batch", 1)
    run_id = (
        _client("operator", "olga")
        .post(URL, _body(sim), format="json", HTTP_IDEMPOTENCY_KEY=_key())
        .json()["id"]
    )
    viewer = _client("viewer", "vera")

    assert viewer.get(URL).status_code == 200
    assert viewer.get(f"{URL}{run_id}/").status_code == 200
    assert (
        viewer.post(URL, _body(sim), format="json", HTTP_IDEMPOTENCY_KEY=_key()).status_code == 403
    )
    for action in ("pause", "resume", "cancel", "retry-failed"):
        assert (
            viewer.post(f"{URL}{run_id}/{action}/", HTTP_IDEMPOTENCY_KEY=_key()).status_code == 403
        )
    assert APIClient().get(URL).status_code in (401, 403)


def test_a_post_without_a_key_is_refused(sim):
    response = _client("operator", "olga").post(URL, _body(sim), format="json")
    assert response.status_code == 400
    assert "Idempotency-Key" in response.json()["detail"]


def _run_with_items(states: list[str]) -> IngestRun:
    now = timezone.now()
    run = IngestRun.objects.create(
        name="r", source_location="0" * 36, path=b"batch", path_shown="batch",
        pipelines=["p1"], status=IngestRun.Status.RUNNING, created_at=now, scanned_at=now,
    )  # fmt: skip
    for number, state in enumerate(states, start=1):
        IngestItem.objects.create(
            run=run, path=f"item-{number}".encode(), path_shown=f"item-{number}",
            name=f"item-{number}", number=number, state=state, pipeline="p1",
            failed_job="Validate" if state == "failed" else "",
        )  # fmt: skip
    return run


def test_items_are_paginated_and_filtered_by_state(sim):
    run = _run_with_items(["queued"] * 3 + ["failed", "stored"])
    client = _client("viewer", "vera")

    page = client.get(f"{URL}{run.pk}/items/?limit=2").json()
    failed = client.get(f"{URL}{run.pk}/items/?state=failed").json()

    assert page["count"] == 5
    assert [item["path"] for item in page["results"]] == ["item-1", "item-2"]
    assert failed["count"] == 1
    assert failed["results"][0]["failed_job"] == "Validate"
    assert set(failed["results"][0]) >= {
        "path", "state", "pipeline", "transfer_uuid", "sip_uuid", "aip_uuid", "attempts",
        "started_at", "finished_at", "failed_job", "reason",
    }  # fmt: skip
    assert client.get(f"{URL}{run.pk}/items/?state=lost").status_code == 400
    assert client.get(f"{URL}999/items/").status_code == 404


def test_pause_resume_cancel_and_retry_failed_are_audited_actions(sim):
    run = _run_with_items(["queued", "queued", "failed", "processing"])
    client = _client("operator", "olga")

    def post(action: str, key: str | None = None):
        return client.post(f"{URL}{run.pk}/{action}/", HTTP_IDEMPOTENCY_KEY=key or _key())

    assert post("pause").status_code == 201
    assert IngestRun.objects.get().status == "paused"
    assert post("pause").status_code == 409  # already paused: refused, said why
    assert post("resume").status_code == 201
    assert IngestRun.objects.get().status == "running"
    assert post("retry-failed").status_code == 201
    assert post("retry-failed").status_code == 409  # once each
    key = _key()
    assert post("cancel", key).status_code == 201
    assert post("cancel", key).status_code == 200  # the same key: the first outcome
    states = sorted(IngestItem.objects.values_list("state", flat=True))
    assert states == ["processing", "skipped", "skipped", "skipped"]
    assert IngestItem.objects.filter(reason__contains="cancelled").count() == 3
    actions = list(
        AuditEntry.objects.filter(target=f"ingest-run:{run.pk}")
        .order_by("id")
        .values_list("action", "outcome")
    )
    assert [a for a, _ in actions] == [
        "ingest_run_pause", "ingest_run_pause", "ingest_run_resume",
        "ingest_run_retry_failed", "ingest_run_retry_failed", "ingest_run_cancel",
    ]  # fmt: skip


def test_a_location_that_is_not_a_transfer_source_is_refused_once_storage_was_polled(sim):
    sim.add_items(b"batch", 1)
    StorageSummary.objects.create(
        fetched_at=timezone.now(),
        data={"locations": [
            {"uuid": sim.location, "purpose": "TS", "enabled": True},
            {"uuid": "1" * 8 + "-1111-1111-1111-" + "1" * 12, "purpose": "AS", "enabled": True},
        ]},
    )  # fmt: skip
    client = _client("operator", "olga")
    elsewhere = client.post(
        URL, _body(sim, source_location="1" * 8 + "-1111-1111-1111-" + "1" * 12),
        format="json", HTTP_IDEMPOTENCY_KEY=_key(),
    )  # fmt: skip
    here = client.post(URL, _body(sim), format="json", HTTP_IDEMPOTENCY_KEY=_key())

    assert elsewhere.status_code == 400
    assert "not an enabled transfer source" in elsewhere.json()["source_location"]
    assert here.status_code == 201
