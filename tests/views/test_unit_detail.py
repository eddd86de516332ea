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


def test_a_failed_unit_says_which_job_failed_when_and_lists_its_failing_tasks_first(viewer):
    from datetime import timedelta

    from django.utils import timezone

    failed = seed(
        unit(
            1,
            name="broken",
            status="FAILED",
            failed_job="Scan for viruses",
            failed_job_uuid=job_uuid_for(4),
            failed_at=timezone.now() - timedelta(hours=3),
            failed_at_from="upstream",
        )
    )[0]
    tasks = [task(n, exit_code=0, file_name=f"objects/ok-{n}.tif") for n in range(10, 40)]
    tasks.append(task(50, exit_code=2, file_name="objects/infected.pdf"))
    seed_jobs(
        failed,
        [
            job(
                4,
                name="Scan for viruses",
                microservice="Scan for viruses",
                status="FAILED",
                tasks=tasks,
            )
        ],
    )
    page = viewer.get(URL).content.decode()
    assert "Why it failed" in page
    assert "failed 3 h ago" in page
    assert "1 task of 31 ended with a non-zero exit code" in page
    # The failing task comes first, before the first page of 20 ends.
    assert page.index("objects/infected.pdf") < page.index("objects/ok-10.tif")
    assert "Page 1 of 2" in page
    assert f"/units/{uuid_for(1)}/jobs/{job_uuid_for(4)}/" in page
    assert f'href="http://127.0.0.1:8001/transfer/{uuid_for(1)}/"' in page
    assert "objects/ok-39.tif" in viewer.get(URL + "?page=2").content.decode()


def test_the_service_link_uses_the_pipeline_ui_url_and_the_ingest_path_for_a_sip(viewer, settings):
    settings.LOOKOUT_PIPELINES = [
        {**settings.LOOKOUT_PIPELINES[0], "ui_url": "https://am.example.org"}
    ]
    failed = seed(unit(1, kind="sip", status="FAILED"))[0]
    seed_jobs(failed, [job(4, name="Normalize", microservice="Normalize", status="FAILED")])
    page = viewer.get(URL).content.decode()
    assert f'href="https://am.example.org/ingest/{uuid_for(1)}/"' in page


def test_an_observed_failure_time_says_at_least(viewer):
    from django.utils import timezone

    failed = seed(unit(1, status="FAILED", failed_at=timezone.now(), failed_at_from="observed"))[0]
    seed_jobs(failed, [job(4, name="Normalize", microservice="Normalize", status="FAILED")])
    assert "at least" in viewer.get(URL).content.decode()


def test_a_unit_the_status_lists_cover_says_when_they_last_showed_it_unchanged(viewer):
    from datetime import timedelta

    from django.utils import timezone

    from dashboard.models import ServicePoll
    from tests.views.seed import PIPELINE

    now = timezone.now()
    seed(
        unit(1, listed_progress="0123456789abcdef", last_polled_at=now - timedelta(minutes=30)),
        unit(2, last_polled_at=now - timedelta(minutes=30)),
    )
    ServicePoll.objects.create(
        service=f"dashboard:{PIPELINE}", last_success_at=now - timedelta(minutes=2)
    )

    covered = viewer.get(URL).content.decode()
    not_covered = viewer.get(f"/units/{uuid_for(2)}/").content.decode()

    assert "30 min ago; seen unchanged in the service's status lists 2 min ago" in covered
    assert "status lists" not in not_covered
