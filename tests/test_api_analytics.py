from __future__ import annotations

from collections import Counter

import pytest
from django.core.management import call_command
from django.test import Client
from django.utils import timezone

from tests.analytics.seeding import history_seed
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def api() -> Client:
    client = Client()
    client.force_login(make_user("vera", "viewer"))
    return client


def test_it_answers_the_page_figures(api):
    seeded = history_seed(days=6, per_day=4)
    call_command("analytics_backfill")
    body = api.get("/api/v1/analytics/", {"period": "7d"}).json()
    assert body["period"]["key"] == "7d"
    transfers = Counter(
        timezone.localdate(u.start).isoformat() for u in seeded.units if u.kind == "transfer"
    )
    got = {r["label"]: r["transfers_started"] for r in body["throughput"]}
    assert {d: got[d] for d in transfers} == dict(transfers)
    groups = {r["group"]: r["runs"] for r in body["failure_groups"]}
    assert groups == dict(Counter(g for u in seeded.units for g in u.groups))
    assert [s["group"] for s in body["stages"]][0] == "Verify transfer compliance"


def test_it_refuses_bad_parameters_and_anonymous_users(api):
    assert api.get("/api/v1/analytics/", {"period": "forever"}).status_code == 400
    assert Client().get("/api/v1/analytics/").status_code in (401, 403)


def test_it_is_in_the_schema(api):
    schema = api.get("/api/v1/schema/").content.decode()
    assert "/api/v1/analytics/" in schema and "not covered" in schema
