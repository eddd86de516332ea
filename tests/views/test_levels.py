"""Levels of description and an arranged path's level: stored by tasks, set by actions."""

from __future__ import annotations

import pytest
from django.test import Client
from rest_framework.test import APIClient

from dashboard import tasks
from dashboard.models import AuditEntry
from dashboard.services import actions
from tests.fakes import FakeWorkflowClient
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
PAGE = "/pipelines/default/levels/"
FETCH = "/pipelines/default/levels/fetch/"
SET = "/pipelines/default/levels/path/"
PATH = "/arrange/série 1/"
FONDS, SERIES = "30000000-0000-4000-8000-000000000001", "30000000-0000-4000-8000-000000000002"
KEY = "l" * 32


@pytest.fixture
def workflow(monkeypatch) -> FakeWorkflowClient:
    client = FakeWorkflowClient(path_levels={PATH: "Fonds"})
    monkeypatch.setattr(actions, "get_workflow_client", lambda config: client)
    return client


@pytest.fixture
def worker(monkeypatch) -> list[tuple]:
    """Queued fetches, run when the test says (the worker's part)."""
    queued: list[tuple] = []
    monkeypatch.setattr(tasks.fetch_levels, "delay", lambda *a: queued.append(("levels", *a)))
    monkeypatch.setattr(tasks.fetch_path_metadata, "delay", lambda *a: queued.append(("path", *a)))
    return queued


def _run(queued: list[tuple]) -> None:
    while queued:
        kind, *args = queued.pop(0)
        (tasks.fetch_levels if kind == "levels" else tasks.fetch_path_metadata).run(*args)


def test_the_page_waits_for_the_task_then_lists_the_levels(operator, workflow, worker):
    first = operator.get(PAGE).content.decode()
    assert "Loading…" in first
    assert workflow.calls == []  # nothing upstream while the person waits

    _run(worker)
    page = operator.get(PAGE).content.decode()

    assert "Fonds" in page and "Series" in page
    assert workflow.calls == [("list_levels_of_description", ())]


def test_a_path_shows_its_level_and_an_operator_sets_another(operator, workflow, worker):
    operator.get(PAGE, {"path": PATH})
    _run(worker)
    page = operator.get(PAGE, {"path": PATH}).content.decode()

    response = operator.post(
        SET, {"path": PATH, "level_of_description": SERIES, "idempotency_key": KEY}, follow=True
    )
    operator.post(SET, {"path": PATH, "level_of_description": SERIES, "idempotency_key": KEY})

    assert '<dd class="path-level">Fonds</dd>' in page
    text = response.content.decode()
    assert f"set the level of description of {PATH} to Series" in text
    assert '<dd class="path-level">Series</dd>' in text
    assert workflow.count("update_path_metadata") == 1
    entry = AuditEntry.objects.get()
    assert (entry.action, entry.outcome) == ("path_level_set", "done")


def test_an_unknown_arranged_path_says_so(operator, workflow, worker):
    operator.get(PAGE, {"path": "/arrange/nowhere/"})
    _run(worker)

    page = operator.get(PAGE, {"path": "/arrange/nowhere/"}).content.decode()

    assert "does not know this arranged path" in page
    assert "Set the level" not in page


def test_a_path_outside_the_arrangement_area_is_caught_in_the_form(operator, workflow, worker):
    response = operator.get(PAGE, {"path": "/etc/passwd"})

    assert response.status_code == 400
    assert "Arranged path: An arranged path starts with /arrange/" in response.content.decode()
    assert not [q for q in worker if q[0] == "path"]


def test_an_admin_fetches_the_levels_again_and_a_failure_is_in_the_services_words(
    admin_client_, workflow, worker
):
    failed = admin_client_.post(FETCH, {"idempotency_key": KEY}, follow=True)
    workflow.access_system_levels = [
        (FONDS, "Fonds"),
        (SERIES, "Series"),
        ("30000000-0000-4000-8000-000000000003", "Item"),
    ]
    done = admin_client_.post(FETCH, {"idempotency_key": "m" * 32}, follow=True)

    assert "Unable to reach the access system." in failed.content.decode()
    assert "fetched 3 levels of description from the access system" in done.content.decode()
    assert "Item" in admin_client_.get(PAGE).content.decode()
    outcomes = list(AuditEntry.objects.order_by("pk").values_list("outcome", flat=True))
    assert outcomes == ["refused", "done"]


def test_fetching_again_is_for_admins_only(operator, workflow, worker):
    assert "Fetch the levels again" not in operator.get(PAGE).content.decode()
    assert operator.post(FETCH, {"idempotency_key": KEY}).status_code == 403
    assert workflow.count("fetch_levels_of_description") == 0


def test_a_viewer_reads_but_cannot_set(viewer, workflow, worker):
    assert viewer.get(PAGE).status_code == 200
    assert (
        viewer.post(
            SET, {"path": PATH, "level_of_description": SERIES, "idempotency_key": KEY}
        ).status_code
        == 403
    )
    assert workflow.count("update_path_metadata") == 0


def test_a_post_without_csrf_token_is_refused(workflow, worker):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("olga", "operator"))

    response = client.post(
        SET, {"path": PATH, "level_of_description": SERIES, "idempotency_key": KEY}
    )

    assert response.status_code == 403
    assert workflow.count("update_path_metadata") == 0


def test_the_api_reads_and_sets_a_paths_level(workflow, worker):
    client = APIClient()
    client.force_authenticate(make_user("otto", "operator"))
    url = "/api/v1/pipelines/default/path-metadata/"

    pending = client.get(url, {"path": PATH}).json()
    _run(worker)
    read = client.get(url, {"path": PATH}).json()
    client.get("/api/v1/pipelines/default/levels/")
    _run(worker)
    body = {"path": PATH, "level_of_description": SERIES}
    first = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    again = client.post(url, body, format="json", HTTP_IDEMPOTENCY_KEY=KEY)
    bad = client.get(url, {"path": "/tmp/x"})

    assert pending["fetching"] is True and pending["level_of_description"] is None
    assert read["level_of_description"] == "Fonds"
    assert first.status_code == 201, first.content
    assert again.status_code == 200 and again.json()["repeated"]
    assert bad.status_code == 400
    assert workflow.path_levels[PATH] == "Series"


def test_the_api_levels_fetch_is_for_admins(workflow, worker):
    operator = APIClient()
    operator.force_authenticate(make_user("otto", "operator"))
    admin = APIClient()
    admin.force_authenticate(make_user("ada", "admin"))
    workflow.access_system_levels = [(FONDS, "Fonds")]
    url = "/api/v1/pipelines/default/levels/fetch/"

    assert operator.post(url, HTTP_IDEMPOTENCY_KEY=KEY).status_code == 403
    assert admin.post(url, HTTP_IDEMPOTENCY_KEY=KEY).status_code == 201
    assert admin.get("/api/v1/pipelines/default/levels/").json()["levels"] == [
        {"uuid": FONDS, "name": "Fonds"}
    ]
