"""Each pipeline says how much Lookout sees of it: API only, or the full view a service
account on the workflow service's own dashboard gives; a refused account is said too."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.models import ServicePoll
from tests.views.seed import PIPELINE, mark_polled, seed, unit, uuid_for

pytestmark = pytest.mark.django_db

API_ONLY_LINE = "units started elsewhere with automatic approval, and their failures, are not seen"


@pytest.fixture
def full_view(settings):
    settings.LOOKOUT_PIPELINES = [
        {**settings.LOOKOUT_PIPELINES[0], "dashboard_user": "u", "dashboard_password": "pw-x1"}
    ]


def test_an_api_only_pipeline_says_what_it_cannot_see_on_the_overview_and_the_wall(viewer):
    mark_polled()

    overview = viewer.get("/").content.decode()
    wall = viewer.get("/wall/").content.decode()

    assert "API only" in overview
    assert API_ONLY_LINE in overview
    assert API_ONLY_LINE in wall


def test_a_full_view_pipeline_carries_no_api_only_line(viewer, full_view):
    mark_polled()

    overview = viewer.get("/").content.decode()
    wall = viewer.get("/wall/").content.decode()

    assert 'data-mode="full_view"' in overview
    assert "full view" in overview
    assert API_ONLY_LINE not in overview
    assert API_ONLY_LINE not in wall


def test_a_refused_account_shows_on_the_overview_and_healthz(viewer, full_view, client):
    mark_polled()
    now = timezone.now()
    ServicePoll.objects.create(
        service=f"dashboard:{PIPELINE}",
        last_attempt_at=now,
        last_success_at=now - timedelta(hours=1),
        last_error="service account refused for Default pipeline: sign-in answered 200",
        last_error_at=now,
    )

    overview = viewer.get("/").content.decode()
    health = client.get("/healthz").content.decode()

    assert "Service account refused for Default pipeline" in overview
    assert "service account refused for Default pipeline" in health


def test_the_unit_page_says_when_a_unit_was_hidden_upstream(viewer):
    gone = timezone.now() - timedelta(minutes=5)
    seed(unit(1, name="tidied-away", status="COMPLETE", hidden_upstream_at=gone))
    mark_polled()

    page = viewer.get(f"/units/{uuid_for(1)}/").content.decode()

    assert "hidden in the workflow service" in page
    assert gone.strftime("%Y-%m-%d") in page
