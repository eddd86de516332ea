"""Upgrading from a release that kept units in the cache loses no unit, hidden unit or
freshness record: the data migration moves them into the database."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.cache import cache
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("dashboard", "0004_storage_package")]
SEEN = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)


def _latest():
    executor = MigrationExecutor(connection)
    return executor.loader.graph.leaf_nodes("dashboard")


def _cached_unit(uuid: str, **fields):
    return {
        "pipeline": "default",
        "uuid": uuid,
        "kind": "transfer",
        "first_seen_at": SEEN,
        "updated_at": SEEN,
        "name": "n" * 400,  # longer than the column: trimmed, not refused
        "status": "USER_INPUT",
        "awaiting_decision": True,
        "waiting_since": SEEN,
        "extra": {"seen_finishing": True},
        "an_old_field": "ignored",
        **fields,
    }


def test_the_first_migrate_after_upgrading_moves_cached_units_hidden_ones_and_freshness():
    latest = _latest()
    _migrate(BEFORE)
    try:
        cache.set(
            "units:default",
            {"u-1": _cached_unit("u-1"), "u-2": _cached_unit("u-2", status="COMPLETE")},
        )
        cache.set("hidden:default", ["u-2", "u-gone"])
        cache.set(
            "freshness:workflow:default",
            {"service": "workflow:default", "last_success_at": SEEN, "last_error": ""},
        )

        _migrate(latest)
    finally:
        _migrate(latest)

    from dashboard.models import ServicePoll, Unit

    units = {unit.uuid: unit for unit in Unit.objects.all()}
    assert set(units) == {"u-1", "u-2", "u-gone"}
    assert units["u-1"].waiting_since == SEEN and units["u-1"].first_seen_at == SEEN
    assert units["u-1"].seen_finishing
    assert len(units["u-1"].name) == 255
    assert units["u-2"].hidden and units["u-gone"].hidden and not units["u-1"].hidden
    assert ServicePoll.objects.get(service="workflow:default").last_success_at == SEEN
