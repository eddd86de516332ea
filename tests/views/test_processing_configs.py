"""Processing configuration pages and API: fetched by a task, shown as decisions in words."""

from __future__ import annotations

from html import escape

import pytest
from django.core.cache import cache
from rest_framework.test import APIClient

from dashboard import tasks
from dashboard.selectors.processing_configs import decision_in_words
from dashboard.services import processing_configs as config_services
from simulator.processing_config import builtin_config
from tests.fakes import FakeWorkflowClient
from tests.support.users import make_user

pytestmark = pytest.mark.django_db
LIST = "/pipelines/default/processing-configurations/"
NORMALIZE_LINK = "cb8e5706-e73f-472f-ad9b-d1236af8095f"


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def workflow(monkeypatch, settings) -> FakeWorkflowClient:
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Default pipeline",
            "url": "http://workflow.invalid",
            "user": "demo",
            "key": "demo-key",
            "processing_configs": ["default", "automated", "nightly"],
        }
    ]
    client = FakeWorkflowClient(
        configs={"default": builtin_config("default"), "automated": builtin_config("automated")}
    )
    monkeypatch.setattr(config_services, "get_workflow_client", lambda config: client)
    return client


@pytest.fixture
def queued(monkeypatch) -> list[tuple[str, str]]:
    """Fetches are recorded, not run: `run(queued)` plays the worker."""
    sent: list[tuple[str, str]] = []
    monkeypatch.setattr(tasks.fetch_processing_config, "delay", lambda *args: sent.append(args))
    return sent


def run(queued: list[tuple[str, str]]) -> None:
    while queued:
        tasks.fetch_processing_config(*queued.pop(0))


def test_the_list_shows_the_names_the_service_lists_once_fetched(
    viewer, workflow, queued, monkeypatch
):
    listings: list[tuple[str, ...]] = []
    monkeypatch.setattr(
        tasks.fetch_processing_config_names, "delay", lambda *args: listings.append(args)
    )

    before = viewer.get(LIST).content.decode()
    for args in listings:
        tasks.fetch_processing_config_names(*args)
    after = viewer.get(LIST).content.decode()

    assert listings == [("default",)]
    assert "nightly" in before  # configured, until the service listed its names
    assert "nightly" not in after
    assert "automated" in after and "default" in after


def test_anonymous_users_go_to_the_login_page(client):
    response = client.get(LIST)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_the_list_loads_each_configured_name_through_a_task(viewer, workflow, queued):
    first = viewer.get(LIST)

    assert first.status_code == 200
    assert "Loading…" in first.content.decode()
    assert sorted(queued) == [
        ("default", "automated"),
        ("default", "default"),
        ("default", "nightly"),
    ]
    assert workflow.calls == []  # the page itself never calls upstream

    run(queued)
    page = viewer.get(LIST).content.decode()

    assert "15 decisions" in page and "27 decisions" in page
    assert "The workflow service has no configuration by this name." in page
    assert escape('No such processing config "nightly".') in page
    assert queued == []  # fresh: nothing fetched again


def test_a_configuration_is_shown_as_questions_and_chosen_answers(viewer, workflow, queued):
    viewer.get(f"{LIST}automated/")
    run(queued)

    page = viewer.get(f"{LIST}automated/").content.decode()

    assert "Normalize for preservation and access" in page
    assert "Select compression algorithm" in page and "7z using bzip2" in page
    assert "Store AIP location" in page and "Default Location" in page
    assert NORMALIZE_LINK not in page  # words, not UUIDs
    assert "Download the XML" in page


def test_the_page_polls_while_loading_and_the_partial_answers_htmx(viewer, workflow, queued):
    page = viewer.get(f"{LIST}default/").content.decode()
    assert "hx-trigger" in page and "Loading…" in page

    run(queued)
    partial = viewer.get(f"{LIST}default/", HTTP_HX_REQUEST="true").content.decode()

    assert partial.lstrip().startswith('<section id="config-live"')
    assert "Bind PIDs?" in partial and "hx-trigger" not in partial


def test_a_missing_name_says_so(viewer, workflow, queued):
    viewer.get(f"{LIST}nightly/")
    run(queued)

    page = viewer.get(f"{LIST}nightly/").content.decode()

    assert "has no processing configuration named “nightly”" in page
    assert "Download the XML" not in page


def test_a_name_not_configured_for_the_pipeline_is_not_found(viewer, workflow, queued):
    assert viewer.get(f"{LIST}other/").status_code == 404
    assert viewer.get("/pipelines/nope/processing-configurations/").status_code == 404
    assert queued == []


def test_an_unreachable_service_is_said_and_the_last_xml_kept(viewer, workflow, queued):
    viewer.get(f"{LIST}default/")
    run(queued)
    workflow.down = True

    viewer.post(f"{LIST}default/")  # Refresh
    run(queued)
    page = viewer.get(f"{LIST}default/").content.decode()

    assert "could not be reached" in page
    assert "Bind PIDs?" in page  # the earlier fetch still shown


def test_the_raw_xml_downloads_as_the_service_gave_it(viewer, workflow, queued):
    assert viewer.get(f"{LIST}default/xml/").status_code == 404  # not fetched yet
    viewer.get(f"{LIST}default/")
    run(queued)

    response = viewer.get(f"{LIST}default/xml/")

    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/xml")
    assert response["Content-Disposition"] == 'attachment; filename="default-default.xml"'
    assert response.content.decode() == builtin_config("default")


def test_the_compare_view_shows_where_two_configurations_differ(viewer, workflow, queued):
    url = f"{LIST}compare/?first=default&second=automated"
    assert "Loading…" in viewer.get(url).content.decode()
    run(queued)

    page = viewer.get(url).content.decode()

    assert "Where “default” and “automated” differ" in page
    assert "Asked at run time" in page  # default leaves normalization to a person
    assert "Normalize for preservation and access" in page
    assert "Bind PIDs?" not in page  # answered the same way in both
    assert "12 decisions differ; 15 are answered the same way." in page


def test_comparing_a_configuration_with_itself_is_refused(viewer, workflow, queued):
    response = viewer.get(f"{LIST}compare/?first=default&second=default")
    assert response.status_code == 400
    assert "Choose two different configurations." in response.content.decode()


def test_the_main_navigation_leads_to_the_first_pipeline(viewer, workflow, queued):
    response = viewer.get("/processing-configurations/")
    assert response.status_code == 302 and response["Location"] == LIST


@pytest.mark.parametrize(
    ("applies_to", "value", "label", "question", "answer"),
    [
        # Known decision, known choice: the table's words.
        (NORMALIZE_LINK, "b93cecd4-71f2-4e28-bc39-d32fd62c5a94", None, "Normalize", None),
        # Known decision, a replacement named by UUID: the XML's own label.
        (
            "bd899573-694e-4d33-8c9b-df0af802437d",
            "7271f2e1-9f39-490c-a1f7-7f0a0ad5e06c",
            "Assign UUIDs to directories?: No",
            "Assign UUIDs to directories?",
            "No",
        ),
        # Unknown decision with a label.
        (
            "11111111-1111-4111-8111-111111111111",
            "x",
            "Local question: Local answer",
            "Local question",
            "Local answer",
        ),
        # Unknown decision without one: the value as sent.
        (
            "11111111-1111-4111-8111-111111111111",
            "raw",
            None,
            "Decision 11111111-1111-4111-8111-111111111111",
            "raw",
        ),
    ],
)
def test_decisions_in_words(applies_to, value, label, question, answer):
    decision = decision_in_words(applies_to=applies_to, value=value, label=label)
    assert decision.question == question
    if answer is not None:
        assert decision.answer == answer
    else:
        assert decision.answer == "Normalize for preservation and access"


# --- API -------------------------------------------------------------------------


def _api(role: str = "viewer") -> APIClient:
    api = APIClient()
    api.force_authenticate(make_user(f"api-{role}", role))
    return api


def test_the_api_lists_configurations_loading_then_in_words(workflow, queued):
    api = _api()
    url = "/api/v1/pipelines/default/processing-configurations/"

    first = api.get(url).json()
    run(queued)
    second = api.get(url).json()

    assert [row["state"] for row in first] == ["loading", "loading", "loading"]
    assert [(row["name"], row["state"]) for row in second] == [
        ("default", "fetched"),
        ("automated", "fetched"),
        ("nightly", "missing"),
    ]
    bind = next(d for d in second[0]["decisions"] if d["question"] == "Bind PIDs?")
    assert bind["answer"] == "No" and bind["group"] == "Bind PIDs"


def test_the_api_detail_carries_the_xml(workflow, queued):
    api = _api()
    url = "/api/v1/pipelines/default/processing-configurations/default/"
    api.get(url)
    run(queued)

    body = api.get(url).json()

    assert body["xml"] == builtin_config("default")
    assert api.get("/api/v1/pipelines/default/processing-configurations/other/").status_code == 404


def test_the_api_needs_a_role(workflow, queued):
    api = APIClient()
    api.force_authenticate(make_user("nobody", None))
    assert api.get("/api/v1/pipelines/default/processing-configurations/").status_code == 403


def test_the_schema_documents_the_configuration_endpoints(workflow):
    schema = _api().get("/api/v1/schema/").content.decode()
    assert "/api/v1/pipelines/{slug}/processing-configurations/{name}/" in schema
