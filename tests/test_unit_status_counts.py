"""The summary's counts by status (UnitStatusCount) follow every way a unit row is
written, through the triggers of migration 0017, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections import Counter

import pytest
from django.core.management import call_command

from dashboard.models import Unit, UnitStatusCount
from dashboard.services import units as unit_services
from tests.views.seed import seed, unit

pytestmark = pytest.mark.django_db


def _kept() -> dict[tuple[str, str], int]:
    kept: Counter[tuple[str, str]] = Counter()
    for row in UnitStatusCount.objects.all():
        kept[row.pipeline, row.status] += row.count
    return {key: n for key, n in kept.items() if n}


def _counted() -> dict[tuple[str, str], int]:
    return dict(Counter(Unit.objects.filter(hidden=False).values_list("pipeline", "status")))


def test_the_counts_follow_saves_bulk_writes_raw_updates_hiding_and_deletes():
    seed(*(unit(n, status="PROCESSING") for n in range(1, 6)), unit(6, status="COMPLETE"))
    Unit.objects.bulk_create([unit(n, status="COMPLETE", pipeline="second") for n in range(10, 14)])
    assert (
        _kept()
        == _counted()
        == {
            ("default", "PROCESSING"): 5,
            ("default", "COMPLETE"): 1,
            ("second", "COMPLETE"): 4,
        }
    )

    Unit.objects.filter(uuid__endswith="01").update(status="FAILED")
    Unit.objects.filter(uuid__endswith="02").update(last_polled_at=None)  # no count moves
    changed = list(Unit.objects.filter(uuid__endswith="03"))
    changed[0].status = "USER_INPUT"
    unit_services._update_each(changed, ("status",))  # the poller's executemany path
    Unit.objects.filter(uuid__endswith="06").update(hidden=True)
    Unit.objects.filter(pipeline="second", uuid__endswith="10").update(pipeline="default")
    Unit.objects.filter(uuid__endswith="11").delete()
    Unit.objects.filter(uuid__endswith="04").update(hidden=True, status="COMPLETE")

    assert (
        _kept()
        == _counted()
        == {
            ("default", "PROCESSING"): 2,
            ("default", "FAILED"): 1,
            ("default", "USER_INPUT"): 1,
            ("default", "COMPLETE"): 1,
            ("second", "COMPLETE"): 2,
        }
    )

    before = UnitStatusCount.objects.count()
    unit_services.unit_status_counts_fold()
    assert _kept() == _counted()
    assert UnitStatusCount.objects.count() == len(_counted()) < before

    Unit.objects.filter(uuid__endswith="04").update(hidden=False)
    Unit.objects.all().delete()
    unit_services.unit_status_counts_fold()
    assert _kept() == _counted() == {}
    assert not UnitStatusCount.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_flush_or_migrate_leaves_the_counts_right():
    seed(unit(1), unit(2, status="FAILED"), unit(3, status="USER_INPUT"))
    # A flush empties the counts before the units, whose deletes the triggers record.
    call_command("flush", interactive=False, verbosity=0)
    assert _kept() == {} == _counted()

    seed(unit(4), unit(5, status="FAILED"))
    UnitStatusCount.objects.all().delete()  # counts lost apart from the units
    call_command("migrate", verbosity=0)
    assert (
        _kept()
        == _counted()
        == {(unit(4).pipeline, "PROCESSING"): 1, (unit(5).pipeline, "FAILED"): 1}
    )
