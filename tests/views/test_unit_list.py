from __future__ import annotations

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from dashboard.models import Unit
from tests.views.seed import PIPELINE, XSS_ESCAPED, XSS_NAME, mark_polled, seed, unit, uuid_for

pytestmark = pytest.mark.django_db


def _names(response) -> list[str]:
    return [u.name for u in response.context["page"].object_list]


def test_it_sends_anonymous_users_to_the_login_page():
    response = Client().get("/units/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_it_answers_a_user_without_a_role_with_403(no_role):
    assert no_role.get("/units/").status_code == 403


def test_it_lists_units_most_recently_changed_first(viewer):
    seed(
        unit(1, name="old", minutes_ago=60),
        unit(2, name="new", minutes_ago=1),
        unit(3, name="middle", minutes_ago=10),
    )

    response = viewer.get("/units/")

    assert response.status_code == 200
    assert _names(response) == ["new", "middle", "old"]


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("q=alpha", ["alpha-scan"]),
        ("status=FAILED", ["broken"]),
        ("kind=sip", ["a-sip"]),
        ("status=PROCESSING&kind=transfer", ["alpha-scan"]),
        (f"q={uuid_for(2)}", ["broken"]),
    ],
)
def test_it_filters_by_search_status_and_kind(viewer, query, expected):
    seed(
        unit(1, name="alpha-scan"),
        unit(2, name="broken", status="FAILED"),
        unit(3, name="a-sip", kind="sip", status="COMPLETE"),
    )

    response = viewer.get(f"/units/?{query}")

    assert _names(response) == expected


def test_it_keeps_the_filters_in_the_form_and_in_the_page_links(viewer):
    seed(*[unit(n, name=f"failed-{n}", status="FAILED", minutes_ago=n) for n in range(1, 56)])

    response = viewer.get("/units/?status=FAILED&q=failed")

    page = response.content.decode()
    assert len(response.context["page"].object_list) == 50
    assert 'href="?q=failed&amp;status=FAILED&amp;page=2"' in page
    assert '<option value="FAILED" selected>' in page
    assert _names(viewer.get("/units/?status=FAILED&q=failed&page=2")) == [
        f"failed-{n}" for n in range(51, 56)
    ]


def test_a_bad_filter_value_gives_a_message_not_an_error(viewer):
    seed(unit(1, name="kept"))

    response = viewer.get("/units/?status=EXPLODED&kind=dragon&page=abc")

    page = response.content.decode()
    assert response.status_code == 200
    assert "Some filters were not understood" in page
    assert "EXPLODED is not one of the available choices" in page
    assert _names(response) == ["kept"]


def test_a_filter_on_an_unknown_pipeline_is_reported(viewer):
    response = viewer.get("/units/?pipeline=nowhere")

    assert response.status_code == 200
    assert "Some filters were not understood" in response.content.decode()


def test_an_htmx_poll_gets_only_the_table_with_the_same_filters(viewer):
    seed(unit(1, name="alpha"), unit(2, name="beta"))

    response = viewer.get("/units/?q=alpha", HTTP_HX_REQUEST="true")

    page = response.content.decode()
    assert page.lstrip().startswith('<div id="units-live"')
    assert 'hx-get="/units/?q=alpha"' in page
    assert "alpha" in page and "beta" not in page
    assert "<form" not in page


def test_it_still_lists_the_last_state_when_the_workflow_service_is_down(viewer):
    seed(unit(1, name="last-known"))
    mark_polled(ok=False, seconds_ago=900)

    page = viewer.get("/units/").content.decode()

    assert "last-known" in page
    assert "stale since" in page


def test_it_escapes_a_hostile_unit_name(viewer):
    seed(unit(1, name=XSS_NAME))

    page = viewer.get(f"/units/?q={uuid_for(1)}").content.decode()

    assert XSS_NAME not in page
    assert XSS_ESCAPED in page


def _unit_counts(viewer, path: str) -> tuple[int, list[str]]:
    with CaptureQueriesContext(connection) as queries:
        response = viewer.get(path)
    counting = [
        q["sql"] for q in queries if "COUNT(*)" in q["sql"] and "dashboard_unit" in q["sql"]
    ]
    return response.context["page"].paginator.count, counting


@pytest.mark.parametrize(
    ("query", "expected"),
    [("", 5), ("status=FAILED", 2), (f"pipeline={PIPELINE}", 5), ("status=COMPLETE", 1)],
)
def test_the_total_filtered_by_pipeline_and_status_is_the_kept_count_not_a_count(
    viewer, query, expected
):
    seed(
        unit(1),
        unit(2, status="FAILED"),
        unit(3, status="FAILED"),
        unit(4, status="COMPLETE"),
        unit(5, status="COMPLETE", hidden=True),
        unit(6, status="USER_INPUT"),
    )

    total, counting = _unit_counts(viewer, f"/units/?{query}")

    assert (
        total
        == expected
        == Unit.objects.filter(hidden=False)
        .filter(**dict(pair.split("=") for pair in query.split("&") if pair))
        .count()
    )
    assert counting == []


def test_a_search_still_counts_its_matches(viewer):
    seed(unit(1, name="alpha"), unit(2, name="alphabet", status="FAILED"), unit(3, name="beta"))

    total, counting = _unit_counts(viewer, "/units/?q=alpha")

    assert total == 2
    assert counting
