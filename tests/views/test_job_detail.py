from __future__ import annotations

import pytest
from django.test import Client

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
URL = f"/units/{uuid_for(1)}/jobs/{job_uuid_for(1)}/"


def _job_with_tasks(status: str = "COMPLETE"):
    owner = seed(unit(1, name="owner"))[0]
    seed_jobs(
        owner,
        [
            job(
                1,
                name="Identify file format",
                microservice="Identify file format",
                status=status,
                tasks=[
                    task(1, exit_code=0, duration=3, file_name="objects/a.tif"),
                    task(2, exit_code=179, under_one=True, file_name="objects/b.pdf"),
                    task(3, exit_code=None, duration=None, file_name="objects/c.wav"),
                ],
            )
        ],
    )


def _rows(response) -> list[str]:
    return [t["file_name"] for t in response.context["page"].object_list]


def test_it_sends_anonymous_users_to_the_login_page():
    assert Client().get(URL).status_code == 302


def test_it_answers_a_user_without_a_role_with_403(no_role):
    assert no_role.get(URL).status_code == 403


def test_it_lists_tasks_with_file_exit_code_times_and_duration(viewer):
    _job_with_tasks()

    response = viewer.get(URL)

    page = response.content.decode()
    assert response.status_code == 200
    assert _rows(response) == ["objects/a.tif", "objects/b.pdf", "objects/c.wav"]
    assert "2026-03-01 10:00:01" in page  # start of the first task
    assert "2026-03-01 10:00:04" in page  # its end
    assert "3 s" in page


def test_a_sub_second_duration_shows_as_under_one_and_a_missing_one_as_a_dash(viewer):
    _job_with_tasks()

    page = viewer.get(URL).content.decode()

    assert '<td data-label="Duration">&lt; 1 s</td>' in page
    assert '<td data-label="Duration">—</td>' in page


def test_it_filters_to_non_zero_exit_codes(viewer):
    _job_with_tasks()

    response = viewer.get(f"{URL}?nonzero=1")

    assert _rows(response) == ["objects/b.pdf"]
    assert "with a non-zero exit code" in response.content.decode()


def test_non_zero_exit_codes_under_a_complete_job_are_explained_not_flagged(viewer):
    _job_with_tasks(status="COMPLETE")

    page = viewer.get(URL).content.decode()

    assert "branch signals" in page
    assert "task-failed" not in page


def test_non_zero_exit_codes_under_a_failed_job_are_highlighted(viewer):
    _job_with_tasks(status="FAILED")

    page = viewer.get(URL).content.decode()

    assert page.count('class="task-failed"') == 1
    assert "branch signals" not in page


def test_an_unknown_job_is_a_404(viewer):
    _job_with_tasks()

    assert viewer.get(f"/units/{uuid_for(1)}/jobs/{job_uuid_for(9)}/").status_code == 404


def test_an_htmx_poll_gets_only_the_task_table_with_the_filter(viewer):
    _job_with_tasks()

    page = viewer.get(f"{URL}?nonzero=1", HTTP_HX_REQUEST="true").content.decode()

    assert page.lstrip().startswith('<div id="tasks-live"')
    assert f'hx-get="{URL}?nonzero=1"' in page
    assert "objects/b.pdf" in page and "objects/a.tif" not in page


def test_it_shows_the_cached_tasks_as_stale_when_the_workflow_service_is_down(viewer):
    _job_with_tasks()
    mark_polled(ok=False, seconds_ago=400)

    page = viewer.get(URL).content.decode()

    assert "objects/a.tif" in page
    assert "Stale data." in page


def test_it_escapes_a_hostile_file_and_unit_name(viewer):
    owner = seed(unit(1, name=XSS_NAME))[0]
    seed_jobs(owner, [job(1, name=XSS_NAME, microservice="x", tasks=[task(1, file_name=XSS_NAME)])])

    page = viewer.get(URL).content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page
