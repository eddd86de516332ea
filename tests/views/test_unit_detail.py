from __future__ import annotations

import pytest
from django.test import Client

from dashboard.models import Unit
from tests.views.seed import (
    XSS_ESCAPED,
    XSS_NAME,
    job,
    job_uuid_for,
    mark_polled,
    seed,
    seed_jobs,
    task,
    unit,
    uuid_for,
)

pytestmark = pytest.mark.django_db
URL = f"/units/{uuid_for(1)}/"


def _failed_unit_with_jobs():
    failed = seed(
        unit(1, name="broken", status="FAILED", microservice="Move to the failed directory")
    )[0]
    seed_jobs(
        failed,
        [
            job(1, name="Verify transfer compliance", microservice="Verify transfer compliance"),
            job(2, name="Assign file UUIDs", microservice="Assign file UUIDs and checksums"),
            job(
                3,
                name="Verify checksums",
                microservice="Verify transfer compliance",
                status="COMPLETE",
                tasks=[task(3, exit_code=1), task(4, exit_code=0)],
            ),
            job(
                4,
                name="Scan for viruses",
                microservice="Scan for viruses",
                status="FAILED",
                tasks=[task(5, exit_code=1)],
            ),
            job(5, name="Move to the failed directory", microservice="Failed transfer"),
        ],
    )
    return failed


def test_it_sends_anonymous_users_to_the_login_page():
    assert Client().get(URL).status_code == 302


def test_it_answers_a_user_without_a_role_with_403(no_role):
    assert no_role.get(URL).status_code == 403


def test_it_shows_status_path_and_the_groups_in_the_order_they_ran(viewer):
    _failed_unit_with_jobs()

    response = viewer.get(URL)

    page = response.content.decode()
    assert response.status_code == 200
    assert [g.name for g in response.context["detail"].groups] == [
        "Verify transfer compliance",
        "Assign file UUIDs and checksums",
        "Scan for viruses",
        "Failed transfer",
    ]
    # The second "Verify transfer compliance" job joins its group, not a new one.
    assert [j["name"] for j in response.context["detail"].groups[0].jobs] == [
        "Verify transfer compliance",
        "Verify checksums",
    ]
    assert "/var/processing/unit-1/" in page
    assert "Failed" in page


def test_it_highlights_the_failed_job_and_links_its_tasks(viewer):
    _failed_unit_with_jobs()

    page = viewer.get(URL).content.decode()

    assert 'class="job-failed"' in page
    assert page.count('class="job-failed"') == 1
    assert "← failed job" in page
    assert f"/units/{uuid_for(1)}/jobs/{job_uuid_for(4)}/" in page


def test_non_zero_exit_codes_under_a_complete_job_are_not_called_failures(viewer):
    _failed_unit_with_jobs()

    page = viewer.get(URL).content.decode()

    assert "1 non-zero exit code, normal branch signal" in page


def test_it_says_when_jobs_are_not_fetched_yet_and_when_the_unit_was_polled(viewer):
    seed(unit(1, name="fresh"))

    page = viewer.get(URL).content.decode()

    assert "Jobs not fetched yet" in page
    assert "last polled this unit 5 s ago" in page


def test_it_offers_hide_to_an_operator_for_a_finished_unit_only(viewer, operator):
    seed(unit(1, status="COMPLETE"), unit(2, status="PROCESSING"))

    assert "Hide unit" in operator.get(URL).content.decode()
    assert "Hide unit" not in operator.get(f"/units/{uuid_for(2)}/").content.decode()
    assert "Hide unit" not in viewer.get(URL).content.decode()


def test_an_unknown_unit_is_a_404_page(viewer):
    response = viewer.get(f"/units/{uuid_for(99)}/")

    assert response.status_code == 404
    assert b"not known to Lookout" in response.content


def test_an_htmx_poll_gets_only_the_live_region(viewer):
    _failed_unit_with_jobs()

    page = viewer.get(URL, HTTP_HX_REQUEST="true").content.decode()

    assert page.lstrip().startswith('<div id="unit-live"')
    assert "<h1" not in page
    assert "Scan for viruses" in page


def test_it_shows_the_last_state_as_stale_when_the_workflow_service_is_down(viewer):
    _failed_unit_with_jobs()
    mark_polled(ok=False, seconds_ago=120)

    page = viewer.get(URL).content.decode()

    assert "Scan for viruses" in page
    assert "Stale data." in page


def test_it_escapes_a_hostile_unit_and_job_name(viewer):
    hostile = seed(unit(1, name=XSS_NAME, path=f"/var/{XSS_NAME}/"))[0]
    seed_jobs(hostile, [job(1, name=XSS_NAME, microservice=XSS_NAME)])

    page = viewer.get(URL).content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


def test_opening_a_unit_whose_jobs_are_not_fetched_asks_the_worker_for_them(viewer):
    seed(unit(1, name="old one", status="COMPLETE", microservice="Remove the processing directory"))

    response = viewer.get(URL)

    assert response.status_code == 200
    assert Unit.objects.get(uuid=uuid_for(1)).jobs_requested_at is not None
