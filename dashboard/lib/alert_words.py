"""An alert's title and detail, written from what it is about in the active language.

An alert is stored with its `words`: a small JSON object naming what happened (`what`)
and the facts (names, times, counts), never sentences. Each message is then written in
its channel's language at delivery, and the alerts page in the reader's. The title and
detail stored beside them are the same text in the site's language, for old rows and
for searching.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext

from dashboard.lib import vocabulary

UNIT_FAILED = "unit_failed"
UNIT_WAITING = "unit_waiting"
UNIT_STUCK = "unit_stuck"
SERVICE_STALE = "service_stale"
STORAGE_FULL = "storage_full"
FIXITY_FAILED = "fixity_failed"
ACCOUNT_REFUSED = "account_refused"
INGEST_FINISHED = "ingest_finished"
INGEST_STALLED = "ingest_stalled"


def _moment(iso: str | None) -> str:
    return vocabulary.moment(datetime.fromisoformat(iso) if iso else None)


def unit_noun(kind: str | None) -> str:
    """`Transfer`, `SIP`, or `Unit` when the kind is not known."""
    return vocabulary.unit_kind_label(kind) if kind else pgettext("unit kind", "Unit")


def _unit(words: dict[str, Any]) -> dict[str, str]:
    return {"unit": unit_noun(words.get("unit_kind")), "name": str(words.get("name", ""))}


def _job(words: dict[str, Any]) -> str:
    return str(words.get("job") or gettext("an unknown job"))


def _unit_failed(words: dict[str, Any]) -> tuple[str, str]:
    title = gettext("%(unit)s %(name)s failed at %(job)s") % {**_unit(words), "job": _job(words)}
    facts = {"job": _job(words), "moment": _moment(words.get("at"))}
    if words.get("observed"):
        detail = gettext("Failed at %(job)s on %(moment)s (first seen by Lookout)") % facts
    else:
        detail = gettext("Failed at %(job)s on %(moment)s (workflow service's time)") % facts
    return title, detail


def _unit_waiting(words: dict[str, Any]) -> tuple[str, str]:
    facts = {**_unit(words), "duration": vocabulary.duration(words.get("seconds"))}
    if words.get("at_least"):
        title = gettext("%(unit)s %(name)s has waited at least %(duration)s for a decision")
    else:
        title = gettext("%(unit)s %(name)s has waited %(duration)s for a decision")
    since = _moment(words.get("since"))
    decision = words.get("decision")
    detail = (
        gettext("Waiting since %(moment)s: %(decision)s") % {"moment": since, "decision": decision}
        if decision
        else gettext("Waiting since %(moment)s") % {"moment": since}
    )
    return title % facts, detail


def _unit_stuck(words: dict[str, Any]) -> tuple[str, str]:
    title = gettext("%(unit)s %(name)s has made no progress for %(duration)s") % {
        **_unit(words),
        "duration": vocabulary.duration(words.get("seconds")),
    }
    step = words.get("microservice") or gettext("its current step")
    detail = gettext("In %(step)s since %(moment)s") % {
        "step": step,
        "moment": _moment(words.get("since")),
    }
    return title, detail


def _service_stale(words: dict[str, Any]) -> tuple[str, str]:
    service = str(words.get("service", ""))
    slug = service.partition(":")[2]
    names = {slug: words["pipeline_name"]} if words.get("pipeline_name") else {}
    title = gettext("%(service)s is stale") % {"service": vocabulary.service_label(service, names)}
    last_success = words.get("last_success")
    detail = (
        gettext("Last good poll %(moment)s.") % {"moment": _moment(last_success)}
        if last_success
        else gettext("Never polled successfully.")
    )
    if words.get("error"):
        # The service's or the connection's own words follow as they came.
        detail += " " + gettext("Last error: %(error)s") % {"error": words["error"]}
    return title, detail


def _storage_full(words: dict[str, Any]) -> tuple[str, str]:
    used, limit = int(words.get("used") or 0), int(words.get("limit") or 0)
    name = str(words.get("name", ""))
    if words.get("store") == "space":
        store = gettext("Space %(name)s") % {"name": name}
    else:
        store = gettext("%(purpose)s location %(name)s") % {
            "purpose": vocabulary.purpose_label(words.get("purpose")),
            "name": name,
        }
    percent = vocabulary.number(100 * used // limit) if limit else "?"
    title = gettext("%(store)s is %(percent)s %% full") % {"store": store, "percent": percent}
    return title, vocabulary.usage_text(used, limit)


def _fixity_failed(words: dict[str, Any]) -> tuple[str, str]:
    title = gettext("Fixity check of package %(package)s failed") % {
        "package": words.get("package", "")
    }
    # The storage service's message, as it gave it.
    return title, str(words.get("message") or "")


def _account_refused(words: dict[str, Any]) -> tuple[str, str]:
    title = gettext("Service account refused for %(pipeline)s") % {
        "pipeline": words.get("pipeline_name", "")
    }
    detail = gettext("Units are seen through the API only until the account is fixed.")
    if words.get("error"):
        # The service's own words, as they came.
        detail = f"{words['error']} {detail}"
    return title, detail


def _ingest_finished(words: dict[str, Any]) -> tuple[str, str]:
    facts = {
        "name": words.get("name", ""),
        "stored": vocabulary.number(words.get("stored") or 0),
        "failed": vocabulary.number(words.get("failed") or 0),
        "skipped": vocabulary.number(words.get("skipped") or 0),
    }
    if words.get("cancelled"):
        title = gettext(
            "Ingest run %(name)s was cancelled: %(stored)s stored, %(failed)s failed, "
            "%(skipped)s skipped"
        )
    else:
        title = gettext(
            "Ingest run %(name)s finished: %(stored)s stored, %(failed)s failed, "
            "%(skipped)s skipped"
        )
    items = int(words.get("items") or 0)
    detail = ngettext("%(count)s item in %(path)s.", "%(count)s items in %(path)s.", items) % {
        "count": vocabulary.number(items),
        "path": words.get("path", "/"),
    }
    return title % facts, detail


def _ingest_stalled(words: dict[str, Any]) -> tuple[str, str]:
    hours = int(words.get("hours") or 0)
    title = ngettext(
        "Ingest run %(name)s has finished no item for %(hours)s hour",
        "Ingest run %(name)s has finished no item for %(hours)s hours",
        hours,
    ) % {"name": words.get("name", ""), "hours": vocabulary.number(hours)}
    # Each pipeline's reason, as the scheduler wrote it.
    waits = words.get("waits") or {}
    return title, "; ".join(f"{slug}: {why}" for slug, why in waits.items())


_WRITERS = {
    UNIT_FAILED: _unit_failed,
    UNIT_WAITING: _unit_waiting,
    UNIT_STUCK: _unit_stuck,
    SERVICE_STALE: _service_stale,
    STORAGE_FULL: _storage_full,
    FIXITY_FAILED: _fixity_failed,
    ACCOUNT_REFUSED: _account_refused,
    INGEST_FINISHED: _ingest_finished,
    INGEST_STALLED: _ingest_stalled,
}


def alert_text(words: dict[str, Any] | None) -> tuple[str, str] | None:
    """(title, detail) in the active language; None when the words say nothing known."""
    writer = _WRITERS.get(str((words or {}).get("what", "")))
    return writer(words or {}) if writer else None
