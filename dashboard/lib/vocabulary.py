"""Every word Lookout shows for an upstream code, and the formatters of numbers.

One module so that a page, the wall and the API never word the same thing two ways:
unit and job statuses (workflow service), package statuses, location purposes,
package types, space protocols and reingest types (storage service), the outcome of
an action, decisions, durations and ages, sizes, storage capacity, and plurals.

Each lookup has a safe fallback: an unknown code is shown as the code itself. The
words are plain text, never marked safe, so templates escape them like any value.
Nothing here imports from the rest of Lookout.

Every word is translated when it is read, in the active language: the tables hold lazy
strings (a context tells translators which noun a status agrees with), the lookups
return plain text. Counts go through `ngettext`, numbers through Django's localized
formatting, so French reads `1,5 Gio` and `il y a 3 min`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal

from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

MISSING = "—"


@dataclass(frozen=True)
class Term:
    """A status in words, with the CSS modifier and icon of the shared status label."""

    code: str
    label: StrOrPromise
    modifier: str = "unknown"
    icon: str = "?"

    @property
    def text(self) -> str:
        """The words in the active language."""
        return str(self.label)


def _terms(*rows: tuple[str, StrOrPromise, str, str]) -> dict[str, Term]:
    return {code: Term(code, text, modifier, icon) for code, text, modifier, icon in rows}


# --------------------------------------------------------------------------- units

# Workflow service statuses, then Lookout's own PENDING (the unit exists upstream but
# has no jobs yet) and UNKNOWN (seen in a list, status not fetched yet). Jobs use the
# same codes.
UNIT_STATUSES = _terms(
    ("PROCESSING", pgettext_lazy("unit status", "Processing"), "processing", "⟳"),
    ("USER_INPUT", pgettext_lazy("unit status", "Awaiting decision"), "waiting", "‖"),
    ("COMPLETE", pgettext_lazy("unit status", "Completed"), "complete", "✓"),
    ("FAILED", pgettext_lazy("unit status", "Failed"), "failed", "✗"),
    ("REJECTED", pgettext_lazy("unit status", "Rejected"), "rejected", "⊘"),
    ("PENDING", pgettext_lazy("unit status", "Pending (no jobs yet)"), "pending", "…"),
    ("UNKNOWN", pgettext_lazy("unit status", "Unknown"), "unknown", "?"),
)
# A COMPLETE transfer whose SIP is "BACKLOG": it went to the transfer backlog.
SENT_TO_BACKLOG = Term("COMPLETE", pgettext_lazy("unit status", "Sent to backlog"), "complete", "✓")
UNIT_KINDS = {"transfer": pgettext_lazy("unit kind", "Transfer"), "sip": "SIP"}


def unit_status(code: str | None, *, sent_to_backlog: bool = False) -> Term:
    """A unit's (or job's) status; a missing one reads as Unknown."""
    code = code or "UNKNOWN"
    if code == "COMPLETE" and sent_to_backlog:
        return SENT_TO_BACKLOG
    return UNIT_STATUSES.get(code) or _unknown_term(code, _("Unknown"))


def unit_kind_label(kind: str | None) -> str:
    return str(UNIT_KINDS.get(kind or "", kind or MISSING))


# The decision Lookout names for a transfer it found in the unapproved list. Stored on
# the unit beside the workflow service's own decision names, so it stays in English.
APPROVE_TRANSFER = "Approve transfer"  # notranslate
# The workflow service's name of the decision a partial reingest waits at (compared
# with its job names, so never translated).
APPROVE_AIP_REINGEST = "Approve AIP reingest"  # notranslate
# Approval jobs of transfer types the unapproved list leaves out: a unit waiting at one is
# approved by the same API call as the others, with this transfer type.
UNLISTED_APPROVAL_TYPES = {
    "Approve research data transfer": "research_data",
    "Approve Dataverse transfer": "research_data",  # the same job, by its product's name
}


def unlisted_approval_type(decision: str | None) -> str | None:
    """The transfer type of the unlisted approval among a unit's waiting jobs, if any
    (`decision` holds the jobs joined by " / ")."""
    for job in (decision or "").split(" / "):
        found = UNLISTED_APPROVAL_TYPES.get(job.strip())
        if found:
            return found
    return None


def decision_label(decision: str | None, microservice: str | None = "") -> str:
    """What a waiting unit waits for: the decision point, else its current microservice.

    The workflow service names a decision only by the microservice that asks it, so
    those names are shown as they come.
    """
    return decision or microservice or MISSING


# Outcomes of an action taken through Lookout (the audit log, the waiting list).
OUTCOMES = _terms(
    ("pending", pgettext_lazy("action outcome", "In progress"), "pending", "…"),
    ("queued", pgettext_lazy("action outcome", "Queued, outcome to follow"), "pending", "…"),
    ("sent", pgettext_lazy("action outcome", "Sent, outcome to follow"), "pending", "…"),
    ("done", pgettext_lazy("action outcome", "Done"), "complete", "✓"),
    ("refused", pgettext_lazy("action outcome", "Refused"), "rejected", "⊘"),
    ("failed", pgettext_lazy("action outcome", "Failed"), "failed", "✗"),
    ("timed_out", pgettext_lazy("action outcome", "Timed out"), "failed", "⌛"),
    ("not_done", pgettext_lazy("action outcome", "Not done"), "rejected", "⊘"),
    ("unknown", pgettext_lazy("action outcome", "Outcome unknown (interrupted)"), "unknown", "?"),
)


def outcome(code: str | None) -> Term:
    return OUTCOMES.get(code or "") or _unknown_term(code, _("Unknown"))


def _unknown_term(code: str | None, empty: StrOrPromise) -> Term:
    """An unknown code as itself; a missing one in words."""
    return Term(code or "", code or empty)


# --------------------------------------------------------------------------- storage

# Every package status the storage service has (spelled FINALIZE, not FINALIZED).
PACKAGE_STATUSES = _terms(
    ("UPLOADED", pgettext_lazy("package status", "Uploaded"), "complete", "✓"),
    ("VERIFIED", pgettext_lazy("package status", "Verified"), "complete", "✓"),
    ("PENDING", pgettext_lazy("package status", "Pending"), "pending", "…"),
    ("STAGING", pgettext_lazy("package status", "Staging"), "processing", "⟳"),
    ("MOVING", pgettext_lazy("package status", "Moving"), "processing", "⟳"),
    ("FINALIZE", pgettext_lazy("package status", "Finalizing"), "processing", "⟳"),
    ("DEL_REQ", pgettext_lazy("package status", "Deletion requested"), "waiting", "‖"),
    ("DELETED", pgettext_lazy("package status", "Deleted"), "rejected", "⊘"),
    ("RECOVER_REQ", pgettext_lazy("package status", "Recovery requested"), "waiting", "‖"),
    ("FAIL", pgettext_lazy("package status", "Failed"), "failed", "✗"),
)


def package_status(code: str | None) -> Term:
    return PACKAGE_STATUSES.get(code or "") or _unknown_term(code, _("Unknown status"))


# Location purposes, in the order the storage pages list them.
PURPOSES = {
    "AS": pgettext_lazy("location purpose", "AIP storage"),
    "DS": pgettext_lazy("location purpose", "DIP storage"),
    "BL": pgettext_lazy("location purpose", "Transfer backlog"),
    "TS": pgettext_lazy("location purpose", "Transfer source"),
    "CP": pgettext_lazy("location purpose", "Currently processing"),
    "AR": pgettext_lazy("location purpose", "AIP recovery"),
    "RP": pgettext_lazy("location purpose", "Replicator"),
    "SD": pgettext_lazy("location purpose", "SWORD deposit"),
    "SS": pgettext_lazy("location purpose", "Storage service internal"),
}


def purpose_label(code: str | None) -> str:
    return str(PURPOSES.get(code or "", code or _("Unknown purpose")))


# Package types as the service spells them, with their nouns for a count.
PACKAGE_TYPES: dict[str, StrOrPromise] = {
    "AIP": "AIP",
    "AIC": "AIC",
    "DIP": "DIP",
    "transfer": pgettext_lazy("package type", "Transfer"),
    "SIP": "SIP",
    "file": pgettext_lazy("package type", "File"),
    "deposit": pgettext_lazy("package type", "Deposit"),
}
# AIP, SIP, DIP and AIC stay as they are in every language; only their plurals may change.
_PACKAGE_TYPE_NOUNS: dict[str, Callable[[int], str]] = {
    "AIP": lambda n: ngettext("AIP", "AIPs", n),
    "AIC": lambda n: ngettext("AIC", "AICs", n),
    "DIP": lambda n: ngettext("DIP", "DIPs", n),
    "transfer": lambda n: ngettext("transfer", "transfers", n),
    "SIP": lambda n: ngettext("SIP", "SIPs", n),
    "file": lambda n: ngettext("file", "files", n),
    "deposit": lambda n: ngettext("deposit", "deposits", n),
}


def package_type_label(code: str | None) -> str:
    return str(PACKAGE_TYPES[code]) if code in PACKAGE_TYPES else code or MISSING


def package_type_noun(count: int, code: str) -> str:
    """The noun for `count` packages of a type: `AIPs`, `transfer`; an unknown code as is."""
    noun = _PACKAGE_TYPE_NOUNS.get(code)
    return noun(count) if noun else code


# Space access protocols. The spec shows only these two codes; others are shown as sent.
PROTOCOLS: dict[str, StrOrPromise] = {
    "FS": pgettext_lazy("space protocol", "Local filesystem"),
    "S3": "S3",
}


def protocol_label(code: str | None) -> str:
    return str(PROTOCOLS.get(code or "", code or MISSING))


# Reingest types as the storage service takes them, with what each does.
# Keyed by the words the storage service compares `reingest_type` with (lower-cased).
REINGEST_TYPES = {
    "metadata": (
        pgettext_lazy("reingest type", "Metadata only"),
        _("keep the objects, rebuild the metadata"),
    ),
    "objects": (
        pgettext_lazy("reingest type", "Objects"),
        _("reprocess the objects, keep the AIP's identity"),
    ),
    "full": (
        pgettext_lazy("reingest type", "Full"),
        _("run the whole ingest again, with a processing configuration"),
    ),
}
FULL_REINGEST = "full"
# Older names for the same types (earlier Lookout audit rows say these).
_REINGEST_ALIASES = {"METADATA_ONLY": "metadata", "OBJECTS": "objects", "FULL": "full"}


def reingest_type_label(code: str | None) -> str:
    key = _REINGEST_ALIASES.get(code or "", code or "")
    return str(REINGEST_TYPES[key][0]) if key in REINGEST_TYPES else code or MISSING


def reingest_type_choices() -> list[tuple[str, str]]:
    return [
        (code, gettext("%(type)s (%(hint)s)") % {"type": label, "hint": hint})
        for code, (label, hint) in REINGEST_TYPES.items()
    ]


# --------------------------------------------------------------------------- capacity

# Share of a quota at which storage turns to a warning, then to critical; the storage
# pages' usage bars and the wall use the same two.
CAPACITY_WARNING_PERCENT = 80
CAPACITY_CRITICAL_PERCENT = 90
CAPACITY_LABELS = {
    "unlimited": pgettext_lazy("capacity", "No limit set"),
    "ok": pgettext_lazy("capacity", "OK"),
    "warning": pgettext_lazy("capacity", "Filling up"),
    "critical": pgettext_lazy("capacity", "Nearly full"),
}


def capacity_level(used: int, limit: int | None) -> str:
    """`unlimited` (no limit, or 0), `ok`, `warning` or `critical`."""
    if not limit:
        return "unlimited"
    percent = 100 * used / limit
    if percent >= CAPACITY_CRITICAL_PERCENT:
        return "critical"
    if percent >= CAPACITY_WARNING_PERCENT:
        return "warning"
    return "ok"


def capacity_label(level: str) -> str:
    return str(CAPACITY_LABELS.get(level, level))


def usage_text(used: int, limit: int | None) -> str:
    """`930.0 GiB of 1000.0 GiB (93.0 %)`, or `5.0 GiB used` when there is no limit."""
    percent = percent_used(used, limit)
    if percent is None:
        return gettext("%(size)s used") % {"size": filesize(used)}
    return gettext("%(used)s of %(limit)s (%(percent)s)") % {
        "used": filesize(used),
        "limit": filesize(limit),
        "percent": percent_text(percent),
    }


def percent_used(used: int, limit: int | None) -> float | None:
    """The share of a limit in use, in tenths of a percent; None when there is no limit.

    Rounded down, so a figure never shows a threshold that the level has not reached.
    """
    if not limit:
        return None
    return int(1000 * used / limit) / 10


def percent_text(percent: float) -> str:
    """`93.0 %` in English, `93,0 %` in French."""
    return gettext("%(number)s %%") % {"number": decimal(percent, 1)}


# --------------------------------------------------------------------------- numbers


def number(value: int) -> str:
    """A whole number as the active language writes it."""
    return formats.number_format(value)


def decimal(value: float, places: int) -> str:
    """A figure rounded (half away from zero, as `f"{x:.1f}"` does for most values) to
    `places` decimals, with the active language's decimal mark: `1.5`, French `1,5`."""
    # Rounded here: Django's number_format cuts extra decimals off instead of rounding.
    return formats.number_format(Decimal(f"{value:.{places}f}"), places)


# Seconds, minutes and hours as the symbols every language of Lookout reads: a count
# goes through ngettext all the same, for languages that inflect them.
JUST_NOW_SECONDS = 5
_MINUTE, _HOUR, _DAY = 60, 3600, 86400


def _seconds(count: int) -> str:
    return ngettext("%(count)s s", "%(count)s s", count) % {"count": number(count)}


def _minutes(count: int) -> str:
    return ngettext("%(count)s min", "%(count)s min", count) % {"count": number(count)}


def _hours(count: int) -> str:
    return ngettext("%(count)s h", "%(count)s h", count) % {"count": number(count)}


def _days(count: int) -> str:
    return ngettext("%(count)s day", "%(count)s days", count) % {"count": number(count)}


def _two_units(larger: str, smaller: str) -> str:
    # Translators: a span in two units, e.g. "2 h" and "5 min" -> "2 h 5 min".
    return pgettext("duration", "%(larger)s %(smaller)s") % {
        "larger": larger,
        "smaller": smaller,
    }


def under_a_second() -> str:
    return gettext("< 1 s")


def duration(seconds: float | None) -> str:
    """A span of time: `< 1 s`, `45 s`, `3 min`, `2 h 5 min`, `1 day 4 h`, `12 days`.

    Whole units, rounded down; the second unit is dropped below minutes and past a week.
    """
    if seconds is None:
        return MISSING
    if seconds < 1:
        return under_a_second()
    whole = int(seconds)
    if whole < _MINUTE:
        return _seconds(whole)
    if whole < _HOUR:
        return _minutes(whole // _MINUTE)
    if whole < _DAY:
        hours, minutes = divmod(whole // _MINUTE, 60)
        return _two_units(_hours(hours), _minutes(minutes)) if minutes else _hours(hours)
    days, hours = divmod(whole // _HOUR, 24)
    if hours and days < 7:
        return _two_units(_days(days), _hours(hours))
    return _days(days)


def ago(seconds: float | None) -> str:
    """How long ago: `just now`, `45 s ago`, `3 min ago`; `never` when unknown."""
    if seconds is None:
        return gettext("never")
    if seconds < JUST_NOW_SECONDS:
        return gettext("just now")
    # Translators: how long ago something happened, e.g. "3 min ago" ("il y a 3 min").
    return gettext("%(duration)s ago") % {"duration": duration(seconds)}


def moment(value: datetime | None) -> str:
    """An aware date and time in TIME_ZONE, to the second and with its zone, the date as
    the active language writes it in full (never ambiguous between day and month):
    `Jan. 1, 2030 12:00:00 UTC`, French `1 janvier 2030 12:00:00 UTC`."""
    if value is None:
        return gettext("unknown time")
    local = timezone.localtime(value)
    # Translators: a date and time to the second with its zone; keep the placeholders.
    return pgettext("date and time", "%(date)s %(time)s %(zone)s") % {
        "date": formats.date_format(local, "DATE_FORMAT"),
        "time": local.strftime("%H:%M:%S"),
        "zone": local.tzname() or "",
    }


# Sizes, decided once for every language: binary (1024-based) units with the IEC
# symbols, the number in the language's own decimal mark, one space between. The
# symbols are translated with the context "binary size unit": French writes them with
# o for octet (`1,5 Gio`, as French IEC usage and most French software do), Spanish
# and Brazilian Portuguese keep `KiB`, `MiB`, `GiB`.
_SIZE_UNITS = (
    pgettext_lazy("binary size unit", "KiB"),
    pgettext_lazy("binary size unit", "MiB"),
    pgettext_lazy("binary size unit", "GiB"),
    pgettext_lazy("binary size unit", "TiB"),
    pgettext_lazy("binary size unit", "PiB"),
)


def filesize(size: int | float | None) -> str:
    """Bytes, 1024-based: `1023 bytes`, `1.0 KiB`, `1.5 KiB`, `1.0 GiB`; French `1,5 Gio`."""
    if size is None:
        return MISSING
    value = float(size)
    if abs(value) < 1024:
        whole = int(value)
        return ngettext("%(count)s byte", "%(count)s bytes", whole) % {"count": number(whole)}
    for unit in _SIZE_UNITS:
        value /= 1024
        if abs(value) < 1024 or unit == _SIZE_UNITS[-1]:
            break
    return f"{decimal(value, 1)} {unit}"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """The English word for `count` of something: `unit`/`units`, `matches`/`match`.

    English only (the template filters of the same name use it): translated text calls
    `ngettext` with both forms written out, so that makemessages finds them.
    """
    if count == 1:
        return singular
    return plural_form if plural_form is not None else f"{singular}s"


def count_noun(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 unit`, `2 units`, `0 units`; an irregular plural is given: `(2, "box", "boxes")`.

    English only, like `plural`."""
    return f"{count} {plural(count, singular, plural_form)}"


# --------------------------------------------------------------------------- services

SERVICE_NAMES = {
    "workflow": _("Workflow service"),
    "dashboard": _("Workflow dashboard lists"),
    "storage": _("Storage service"),
}


def service_label(service: str, names: dict[str, str] | None = None) -> str:
    """A freshness key in words: `workflow:east` -> `Workflow service (East pipeline)`."""
    kind, _colon, slug = service.partition(":")
    label = str(SERVICE_NAMES.get(kind, kind))
    if not slug:
        return label
    # Translators: a service and the pipeline it belongs to.
    return gettext("%(service)s (%(pipeline)s)") % {
        "service": label,
        "pipeline": (names or {}).get(slug, slug),
    }


# Package statuses a package leaves without anyone touching it in Lookout.
TRANSITIONAL_PACKAGE_STATUSES = (
    "PENDING",
    "STAGING",
    "DEL_REQ",
    "RECOVER_REQ",
    "MOVING",
    "FINALIZE",
)


# --------------------------------------------------------------------------- transfers

# Transfer types as the workflow service takes them (`type`), in the spec's order.
TRANSFER_TYPES = {
    "standard": pgettext_lazy("transfer type", "Standard"),
    "zipfile": pgettext_lazy("transfer type", "Zipped file"),
    "unzipped bag": pgettext_lazy("transfer type", "Unzipped bag"),
    "zipped bag": pgettext_lazy("transfer type", "Zipped bag"),
    "maildir": pgettext_lazy("transfer type", "Mail directory"),
    "repository_system": pgettext_lazy("transfer type", "From a repository system"),
    "records_system": pgettext_lazy("transfer type", "From a records management system"),
    "research_data": pgettext_lazy("transfer type", "From a research data repository"),
}


def transfer_type_label(code: str | None) -> str:
    return str(TRANSFER_TYPES.get(code or "", code or MISSING))


# --------------------------------------------------------------------------- ingest runs

# An ingest run's items, in the lifecycle's order, with the labels units use for the same
# idea (a processing item reads as a processing unit does).
INGEST_ITEM_STATES = _terms(
    ("queued", pgettext_lazy("ingest state", "Queued"), "pending", "…"),
    ("starting", pgettext_lazy("ingest state", "Starting"), "processing", "⟳"),
    ("processing", pgettext_lazy("ingest state", "Processing"), "processing", "⟳"),
    ("waiting", pgettext_lazy("ingest state", "Awaiting decision"), "waiting", "‖"),
    ("stored", pgettext_lazy("ingest state", "Stored"), "complete", "✓"),
    ("failed", pgettext_lazy("ingest state", "Failed"), "failed", "✗"),
    ("skipped", pgettext_lazy("ingest state", "Skipped"), "rejected", "⊘"),
)
INGEST_RUN_STATUSES = _terms(
    ("queued", pgettext_lazy("ingest state", "Queued"), "pending", "…"),
    ("running", pgettext_lazy("ingest state", "Running"), "processing", "⟳"),
    ("paused", pgettext_lazy("ingest state", "Paused"), "waiting", "‖"),
    ("finished", pgettext_lazy("ingest state", "Finished"), "complete", "✓"),
    ("cancelled", pgettext_lazy("ingest state", "Cancelled"), "rejected", "⊘"),
)
# A finished run with failed items reads as such, not as a plain success.
INGEST_RUN_FINISHED_WITH_FAILURES = Term(
    "finished", pgettext_lazy("ingest state", "Finished with failures"), "failed", "✗"
)


def ingest_item_state(code: str | None) -> Term:
    return INGEST_ITEM_STATES.get(code or "") or _unknown_term(code, _("Unknown"))


def ingest_run_status(code: str | None, *, failures: int = 0) -> Term:
    if code == "finished" and failures:
        return INGEST_RUN_FINISHED_WITH_FAILURES
    return INGEST_RUN_STATUSES.get(code or "") or _unknown_term(code, _("Unknown"))


# --------------------------------------------------------------------------- audit log

# What each audited action did, in words (the audit log keeps the code).
AUDIT_ACTIONS = {
    "alert_channel_add": pgettext_lazy("audit action", "Alert channel added"),
    "alert_channel_digest": pgettext_lazy("audit action", "Alert channel digest set"),
    "alert_channel_language": pgettext_lazy("audit action", "Alert channel language set"),
    "alert_channel_remove": pgettext_lazy("audit action", "Alert channel removed"),
    "alert_channel_test": pgettext_lazy("audit action", "Alert channel tested"),
    "alert_rule_add": pgettext_lazy("audit action", "Alert rule added"),
    "alert_rule_change": pgettext_lazy("audit action", "Alert rule changed"),
    "alert_silence": pgettext_lazy("audit action", "Alert silenced"),
    "alert_unsilence": pgettext_lazy("audit action", "Alert silence lifted"),
    "api_token_create": pgettext_lazy("audit action", "API token created"),
    "api_token_revoke": pgettext_lazy("audit action", "API token revoked"),
    "csv_validate": pgettext_lazy("audit action", "CSV validated"),
    "decision_answer": pgettext_lazy("audit action", "Decision answered"),
    "directory_role_grant": pgettext_lazy("audit action", "Role given by the directory"),
    "directory_role_revoke": pgettext_lazy("audit action", "Role taken by the directory"),
    "ingest_run_cancel": pgettext_lazy("audit action", "Ingest run cancelled"),
    "ingest_run_create": pgettext_lazy("audit action", "Ingest run created"),
    "ingest_run_pause": pgettext_lazy("audit action", "Ingest run paused"),
    "ingest_run_resume": pgettext_lazy("audit action", "Ingest run resumed"),
    "ingest_run_retry_failed": pgettext_lazy("audit action", "Failed items retried"),
    "levels_fetch": pgettext_lazy("audit action", "Levels of description fetched"),
    "login_locked": pgettext_lazy("audit action", "Login locked"),
    "login_unlocked": pgettext_lazy("audit action", "Login unlocked"),
    "metadata_files_add": pgettext_lazy("audit action", "Metadata files added"),
    "package_deletion_request": pgettext_lazy("audit action", "Package deletion requested"),
    "package_download": pgettext_lazy("audit action", "Package downloaded"),
    "package_fixity_check": pgettext_lazy("audit action", "Package fixity checked"),
    "package_move": pgettext_lazy("audit action", "Package moved"),
    "package_recovery_request": pgettext_lazy("audit action", "Package recovery requested"),
    "package_reingest": pgettext_lazy("audit action", "Package reingest started"),
    "partial_reingest_approve": pgettext_lazy("audit action", "Partial reingest approved"),
    "partial_reingest_start": pgettext_lazy("audit action", "Partial reingest started"),
    "path_level_set": pgettext_lazy("audit action", "Level of description set"),
    "transfer_approve": pgettext_lazy("audit action", "Transfer approved"),
    "transfer_start": pgettext_lazy("audit action", "Transfer started"),
    "unit_hide": pgettext_lazy("audit action", "Unit hidden"),
    "units_hide": pgettext_lazy("audit action", "Units hidden"),
    "units_unhide": pgettext_lazy("audit action", "Hidden units shown again"),
    "user_roles_change": pgettext_lazy("audit action", "User roles changed"),
    "wall_link_create": pgettext_lazy("audit action", "Wall link created"),
    "wall_link_language": pgettext_lazy("audit action", "Wall link language set"),
    "wall_link_revoke": pgettext_lazy("audit action", "Wall link revoked"),
}


def audit_action(code: str | None) -> str:
    """An audit row's action in words; an unknown code as its words, capitalised."""
    if code in AUDIT_ACTIONS:
        return str(AUDIT_ACTIONS[code])
    words = str(code or "").replace("_", " ").strip()
    return words[:1].upper() + words[1:]
