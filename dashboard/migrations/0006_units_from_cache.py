"""Move what earlier releases kept only in the cache into the new tables.

Units (with the hidden set), and poll freshness. Whatever the cache no longer holds is
simply found again by the first poll; nothing is lost that was still there.
"""

from django.conf import settings
from django.core.cache import cache
from django.db import migrations
from django.utils import timezone

UNIT_FIELDS = {
    "kind", "name", "status", "microservice", "path", "directory", "transfer_type",
    "sip_uuid", "transfer_uuid", "sent_to_backlog", "awaiting_sip_uuid",
    "awaiting_approval", "awaiting_decision", "decision", "waiting_since", "hidden",
    "first_seen_at", "updated_at", "last_polled_at", "next_poll_at", "poll_error",
    "missing_count",
}  # fmt: skip
FRESHNESS_FIELDS = {
    "last_attempt_at", "last_success_at", "last_error", "last_error_at",
    "last_duration_ms", "last_request_count",
}  # fmt: skip


def _cached(key):
    try:
        return cache.get(key)
    except Exception:  # no cache table yet, or Redis unreachable: nothing to move
        return None


def forwards(apps, schema_editor):
    Unit = apps.get_model("dashboard", "Unit")
    ServicePoll = apps.get_model("dashboard", "ServicePoll")
    now = timezone.now()
    services = ["storage"]
    for pipeline in getattr(settings, "LOOKOUT_PIPELINES", []):
        slug = pipeline["slug"]
        services.append(f"workflow:{slug}")
        cached = _cached(f"units:{slug}") or {}
        hidden = set(_cached(f"hidden:{slug}") or ())
        rows = {}
        for uuid, data in cached.items():
            values = {k: v for k, v in data.items() if k in UNIT_FIELDS}
            for name, value in values.items():
                # Upstream text may be longer than the column (PostgreSQL refuses it).
                limit = getattr(Unit._meta.get_field(name), "max_length", None)
                if limit and isinstance(value, str):
                    values[name] = value[:limit]
            extra = data.get("extra") or {}
            values["needs_details"] = bool(extra.get("needs_details"))
            values["seen_finishing"] = bool(extra.get("seen_finishing"))
            rows[uuid] = Unit(pipeline=slug, uuid=uuid, **values)
        for uuid in hidden:
            # A hidden unit the cache no longer describes: keep it hidden when found again.
            unit = rows.setdefault(
                uuid, Unit(pipeline=slug, uuid=uuid, first_seen_at=now, updated_at=now)
            )
            unit.hidden = True
        Unit.objects.bulk_create(rows.values(), batch_size=500, ignore_conflicts=True)
    for service in services:
        data = _cached(f"freshness:{service}")
        if data:
            values = {k: v for k, v in data.items() if k in FRESHNESS_FIELDS}
            ServicePoll.objects.update_or_create(service=service, defaults=values)


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0005_units_in_database")]

    operations = [migrations.RunPython(forwards, migrations.RunPython.noop)]
