"""What a daily digest says: units waiting for a decision, the day's failures grouped by
job, and how full the storage spaces are. Read from the database and the stored storage
summary; the result is plain JSON, kept with the outbox row it is sent from."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import TimesFrom, Unit
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors.failures import failure_groups

# "Failures of the day": the 24 hours before the digest.
DIGEST_PERIOD = timedelta(days=1)
GROUPS_PER_PIPELINE = 20


def _oldest_waiting(now: datetime) -> dict[str, Any] | None:
    unit = (
        Unit.objects.filter(hidden=False, awaiting_decision=True, waiting_since__isnull=False)
        .order_by("waiting_since", "id")
        .only("uuid", "name", "kind", "pipeline", "decision", "waiting_since", "waiting_since_from")
        .first()
    )
    if unit is None or unit.waiting_since is None:
        return None
    since = unit.waiting_since
    return {
        "uuid": str(unit.uuid),
        "name": unit.name or str(unit.uuid),
        "kind": vocabulary.unit_kind_label(unit.kind) if unit.kind else "Unit",
        "unit_kind": unit.kind,
        "pipeline": unit.pipeline,
        "decision": unit.decision,
        "waiting_since": since.isoformat(),
        # Upstream: the workflow service's own time; else when Lookout first saw it waiting.
        "waiting_since_from": unit.waiting_since_from,
        "waited": vocabulary.duration((now - since).total_seconds()),
        "at_least": unit.waiting_since_from == TimesFrom.OBSERVED,
        "path": reverse("dashboard:unit-detail", kwargs={"uuid": unit.uuid}),
    }


def digest_contents(*, now: datetime) -> dict[str, Any]:
    since = now - DIGEST_PERIOD
    names = {p.slug: p.name for p in pipeline_list()}
    failures = [
        {
            "pipeline": slug,
            "pipeline_name": name,
            "job": group.job or _("an unknown job"),
            "count": group.count,
            "last_failed_at": group.last_failed_at.isoformat() if group.last_failed_at else None,
        }
        for slug, name in names.items()
        for group in failure_groups(pipeline=slug, since=since, limit=GROUPS_PER_PIPELINE)
    ]
    spaces = [
        {
            "name": space.path or space.uuid,
            "uuid": space.uuid,
            "used": space.usage.used,
            "size": space.usage.limit,
            "percent": space.usage.percent,
            "text": space.usage.text,
            "level": space.usage.level,
        }
        for space in storage_selectors.space_list()
    ]
    return {
        "at": now.isoformat(),
        "since": since.isoformat(),
        "waiting": {
            "count": Unit.objects.filter(hidden=False, awaiting_decision=True).count(),
            "oldest": _oldest_waiting(now),
        },
        "failures": failures,
        "spaces": spaces,
    }
