"""Decisions the API cannot answer: the question and choices in words, and a link to the
unit in the workflow service's own UI."""

from __future__ import annotations

import pytest

from dashboard.lib.decision_points import DECISION_POINTS, decision_points_for
from dashboard.selectors.decisions import pending_decisions, unit_service_url
from tests.views.seed import seed, uuid_for, waiting_unit

pytestmark = pytest.mark.django_db


@pytest.fixture
def pipelines(settings):
    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Default",
            "url": "http://workflow.example.org",
            "user": "u",
            "key": "k",
            "ui_url": "https://ui.example.org/",
        }
    ]


def test_the_waiting_page_shows_the_question_its_choices_and_the_services_ui(operator, pipelines):
    seed(
        waiting_unit(1, approval=False, kind="sip", decision="Normalize", microservice="Normalize")
    )

    page = operator.get("/waiting/").content.decode()

    assert "Normalize for preservation and access" in page
    assert "Do not normalize" in page
    assert f'href="https://ui.example.org/ingest/{uuid_for(1)}/"' in page
    assert "cannot answer this decision" in page


def test_the_unit_page_shows_them_too(operator, pipelines):
    seed(waiting_unit(2, approval=False, decision="Create SIP(s)", microservice="Create SIP(s)"))

    page = operator.get(f"/units/{uuid_for(2)}/").content.decode()

    assert "Create single SIP and continue processing" in page
    assert "Send to backlog" in page
    assert f'href="https://ui.example.org/transfer/{uuid_for(2)}/"' in page


def test_transfer_approval_stays_a_button_and_is_not_sent_away(operator, pipelines):
    seed(waiting_unit(3))

    page = operator.get("/waiting/").content.decode()

    assert "Approve…" in page
    assert "Answer it in the workflow service" not in page


def test_an_unknown_decision_still_links_to_the_service(operator, pipelines):
    unit = waiting_unit(4, approval=False, decision="Something new", microservice="Something new")
    seed(unit)

    (decision,) = pending_decisions(unit)

    assert decision.choices == ()
    assert decision.service_url.endswith(f"/transfer/{uuid_for(4)}/")
    assert "does not know this decision" in operator.get("/waiting/").content.decode()


def test_a_location_decision_is_put_in_words():
    (point,) = decision_points_for("Store AIP location")
    unit = waiting_unit(5, approval=False, decision="Store AIP location")

    (decision,) = pending_decisions(unit)

    assert point.kind == "storage_location_choice"
    assert "The default location" in decision.choices


def test_the_ui_url_defaults_to_the_pipelines_url(settings):
    settings.LOOKOUT_PIPELINES = [
        {"slug": "default", "name": "D", "url": "http://wf.example.org", "user": "", "key": ""}
    ]
    assert unit_service_url(waiting_unit(6)) == f"http://wf.example.org/transfer/{uuid_for(6)}/"


def test_every_decision_point_is_complete():
    assert len(DECISION_POINTS) == 50
    for point in DECISION_POINTS:
        assert point.group and point.job and len(point.link_id) == 36
