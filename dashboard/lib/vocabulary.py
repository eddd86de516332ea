"""Every word Lookout shows for an upstream code, and the formatters of numbers.

One module so that a page, the wall and the API never word the same thing two ways:
unit and job statuses (workflow service), package statuses, location purposes,
package types, space protocols and reingest types (storage service), the outcome of
an action, decisions, durations and ages, sizes, storage capacity, and plurals.

Each lookup has a safe fallback: an unknown code is shown as the code itself. The
words are plain text, never marked safe, so templates escape them like any value.
Nothing here imports from the rest of Lookout.
"""

from __future__ import annotations

from dataclasses import dataclass

MISSING = "—"


@dataclass(frozen=True)
class Term:
    """A status in words, with the CSS modifier and icon of the shared status label."""

    code: str
    text: str
    modifier: str = "unknown"
    icon: str = "?"


def _terms(*rows: tuple[str, str, str, str]) -> dict[str, Term]:
    return {code: Term(code, text, modifier, icon) for code, text, modifier, icon in rows}


def _unknown(code: str | None, empty: str) -> Term:
    return Term(code or "", code or empty)


# --------------------------------------------------------------------------- units

# Workflow service statuses, then Lookout's own PENDING (the unit exists upstream but
# has no jobs yet) and UNKNOWN (seen in a list, status not fetched yet). Jobs use the
# same codes.
UNIT_STATUSES = _terms(
    ("PROCESSING", "Processing", "processing", "⟳"),
    ("USER_INPUT", "Awaiting decision", "waiting", "‖"),
    ("COMPLETE", "Completed", "complete", "✓"),
    ("FAILED", "Failed", "failed", "✗"),
    ("REJECTED", "Rejected", "rejected", "⊘"),
    ("PENDING", "Pending (no jobs yet)", "pending", "…"),
    ("UNKNOWN", "Unknown", "unknown", "?"),
)
# A COMPLETE transfer whose SIP is "BACKLOG": it went to the transfer backlog.
SENT_TO_BACKLOG = Term("COMPLETE", "Sent to backlog", "complete", "✓")
UNIT_KINDS = {"transfer": "Transfer", "sip": "SIP"}


def unit_status(code: str | None, *, sent_to_backlog: bool = False) -> Term:
    """A unit's (or job's) status; a missing one reads as Unknown."""
    code = code or "UNKNOWN"
    if code == "COMPLETE" and sent_to_backlog:
        return SENT_TO_BACKLOG
    return UNIT_STATUSES.get(code) or _unknown(code, "Unknown")


def unit_kind_label(kind: str | None) -> str:
    return UNIT_KINDS.get(kind or "", kind or MISSING)


# The decision Lookout names for a transfer it found in the unapproved list.
APPROVE_TRANSFER = "Approve transfer"
# The decision a partial reingest started from the workflow side waits at; the API answers it.
APPROVE_AIP_REINGEST = "Approve AIP reingest"
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
    ("pending", "In progress", "pending", "…"),
    ("queued", "Queued, outcome to follow", "pending", "…"),
    ("done", "Done", "complete", "✓"),
    ("refused", "Refused", "rejected", "⊘"),
    ("failed", "Failed", "failed", "✗"),
    ("timed_out", "Timed out", "failed", "⌛"),
    ("not_done", "Not done", "rejected", "⊘"),
    ("unknown", "Outcome unknown (interrupted)", "unknown", "?"),
)


def outcome(code: str | None) -> Term:
    return OUTCOMES.get(code or "") or _unknown(code, "Unknown")


# --------------------------------------------------------------------------- storage

# Every package status the storage service has (spelled FINALIZE, not FINALIZED).
PACKAGE_STATUSES = _terms(
    ("UPLOADED", "Uploaded", "complete", "✓"),
    ("VERIFIED", "Verified", "complete", "✓"),
    ("PENDING", "Pending", "pending", "…"),
    ("STAGING", "Staging", "processing", "⟳"),
    ("MOVING", "Moving", "processing", "⟳"),
    ("FINALIZE", "Finalizing", "processing", "⟳"),
    ("DEL_REQ", "Deletion requested", "waiting", "‖"),
    ("DELETED", "Deleted", "rejected", "⊘"),
    ("RECOVER_REQ", "Recovery requested", "waiting", "‖"),
    ("FAIL", "Failed", "failed", "✗"),
)


def package_status(code: str | None) -> Term:
    return PACKAGE_STATUSES.get(code or "") or _unknown(code, "Unknown status")


# Location purposes, in the order the storage pages list them.
PURPOSES = {
    "AS": "AIP storage",
    "DS": "DIP storage",
    "BL": "Transfer backlog",
    "TS": "Transfer source",
    "CP": "Currently processing",
    "AR": "AIP recovery",
    "RP": "Replicator",
    "SD": "SWORD deposit",
    "SS": "Storage service internal",
}


def purpose_label(code: str | None) -> str:
    return PURPOSES.get(code or "", code or "Unknown purpose")


# Package types as the service spells them: (label, singular noun, plural noun).
PACKAGE_TYPES = {
    "AIP": ("AIP", "AIP", "AIPs"),
    "AIC": ("AIC", "AIC", "AICs"),
    "DIP": ("DIP", "DIP", "DIPs"),
    "transfer": ("Transfer", "transfer", "transfers"),
    "SIP": ("SIP", "SIP", "SIPs"),
    "file": ("File", "file", "files"),
    "deposit": ("Deposit", "deposit", "deposits"),
}


def package_type_label(code: str | None) -> str:
    return PACKAGE_TYPES[code][0] if code in PACKAGE_TYPES else code or MISSING


def package_type_noun(count: int, code: str) -> str:
    """The noun for `count` packages of a type: `AIPs`, `transfer`; an unknown code as is."""
    if code not in PACKAGE_TYPES:
        return code
    _, singular, plural_form = PACKAGE_TYPES[code]
    return plural(count, singular, plural_form)


# Space access protocols. The spec shows only these two codes; others are shown as sent.
PROTOCOLS = {"FS": "Local filesystem", "S3": "S3"}


def protocol_label(code: str | None) -> str:
    return PROTOCOLS.get(code or "", code or MISSING)


# Reingest types as the storage service takes them, with what each does.
# Keyed by the words the storage service compares `reingest_type` with (lower-cased).
REINGEST_TYPES = {
    "metadata": ("Metadata only", "keep the objects, rebuild the metadata"),
    "objects": ("Objects", "reprocess the objects, keep the AIP's identity"),
    "full": ("Full", "run the whole ingest again, with a processing configuration"),
}
FULL_REINGEST = "full"
# Older names for the same types (earlier Lookout audit rows say these).
_REINGEST_ALIASES = {"METADATA_ONLY": "metadata", "OBJECTS": "objects", "FULL": "full"}


def reingest_type_label(code: str | None) -> str:
    key = _REINGEST_ALIASES.get(code or "", code or "")
    return REINGEST_TYPES[key][0] if key in REINGEST_TYPES else code or MISSING


def reingest_type_choices() -> list[tuple[str, str]]:
    return [(code, f"{label} ({hint})") for code, (label, hint) in REINGEST_TYPES.items()]


# --------------------------------------------------------------------------- capacity

# Share of a quota at which storage turns to a warning, then to critical; the storage
# pages' usage bars and the wall use the same two.
CAPACITY_WARNING_PERCENT = 80
CAPACITY_CRITICAL_PERCENT = 90
CAPACITY_LABELS = {
    "unlimited": "No limit set",
    "ok": "OK",
    "warning": "Filling up",
    "critical": "Nearly full",
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
    return CAPACITY_LABELS.get(level, level)


def usage_text(used: int, limit: int | None) -> str:
    """`930.0 GiB of 1000.0 GiB (93.0 %)`, or `5.0 GiB used` when there is no limit."""
    percent = percent_used(used, limit)
    if percent is None:
        return f"{filesize(used)} used"
    return f"{filesize(used)} of {filesize(limit)} ({percent:.1f} %)"


def percent_used(used: int, limit: int | None) -> float | None:
    """The share of a limit in use, in tenths of a percent; None when there is no limit.

    Rounded down, so a figure never shows a threshold that the level has not reached.
    """
    if not limit:
        return None
    return int(1000 * used / limit) / 10


# --------------------------------------------------------------------------- numbers

UNDER_A_SECOND = "< 1 s"
# An age under this many seconds reads "just now".
JUST_NOW_SECONDS = 5
_MINUTE, _HOUR, _DAY = 60, 3600, 86400


def duration(seconds: float | None) -> str:
    """A span of time: `< 1 s`, `45 s`, `3 min`, `2 h 5 min`, `1 day 4 h`, `12 days`.

    Whole units, rounded down; the second unit is dropped below minutes and past a week.
    """
    if seconds is None:
        return MISSING
    if seconds < 1:
        return UNDER_A_SECOND
    whole = int(seconds)
    if whole < _MINUTE:
        return f"{whole} s"
    if whole < _HOUR:
        return f"{whole // _MINUTE} min"
    if whole < _DAY:
        hours, minutes = divmod(whole // _MINUTE, 60)
        return f"{hours} h {minutes} min" if minutes else f"{hours} h"
    days, hours = divmod(whole // _HOUR, 24)
    if hours and days < 7:
        return f"{count_noun(days, 'day')} {hours} h"
    return count_noun(days, "day")


def ago(seconds: float | None) -> str:
    """How long ago: `just now`, `45 s ago`, `3 min ago`; `never` when unknown."""
    if seconds is None:
        return "never"
    if seconds < JUST_NOW_SECONDS:
        return "just now"
    return f"{duration(seconds)} ago"


_SIZE_UNITS = ("KiB", "MiB", "GiB", "TiB", "PiB")


def filesize(size: int | float | None) -> str:
    """Bytes, 1024-based: `1023 bytes`, `1.0 KiB`, `1.5 KiB`, `1.0 GiB`."""
    if size is None:
        return MISSING
    value = float(size)
    if abs(value) < 1024:
        return count_noun(int(value), "byte")
    for unit in _SIZE_UNITS:
        value /= 1024
        if abs(value) < 1024 or unit == _SIZE_UNITS[-1]:
            break
    return f"{value:.1f} {unit}"


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """The word for `count` of something: `unit`/`units`, `matches`/`match`."""
    if count == 1:
        return singular
    return plural_form if plural_form is not None else f"{singular}s"


def count_noun(count: int, singular: str, plural_form: str | None = None) -> str:
    """`1 unit`, `2 units`, `0 units`; an irregular plural is given: `(2, "box", "boxes")`."""
    return f"{count} {plural(count, singular, plural_form)}"


# --------------------------------------------------------------------------- services


def service_label(service: str, names: dict[str, str] | None = None) -> str:
    """A freshness key in words: `workflow:east` -> `Workflow service (East pipeline)`."""
    kind, _, slug = service.partition(":")
    label = {"workflow": "Workflow service", "storage": "Storage service"}.get(kind, kind)
    if not slug:
        return label
    return f"{label} ({(names or {}).get(slug, slug)})"


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
    "standard": "Standard",
    "zipfile": "Zipped file",
    "unzipped bag": "Unzipped bag",
    "zipped bag": "Zipped bag",
    "maildir": "Mail directory",
    "repository_system": "From a repository system",
    "records_system": "From a records management system",
    "research_data": "From a research data repository",
}


def transfer_type_label(code: str | None) -> str:
    return TRANSFER_TYPES.get(code or "", code or MISSING)


# --------------------------------------------------------------------------- ingest runs

# An ingest run's items, in the lifecycle's order, with the labels units use for the same
# idea (a processing item reads as a processing unit does).
INGEST_ITEM_STATES = _terms(
    ("queued", "Queued", "pending", "…"),
    ("starting", "Starting", "processing", "⟳"),
    ("processing", "Processing", "processing", "⟳"),
    ("waiting", "Awaiting decision", "waiting", "‖"),
    ("stored", "Stored", "complete", "✓"),
    ("failed", "Failed", "failed", "✗"),
    ("skipped", "Skipped", "rejected", "⊘"),
)
INGEST_RUN_STATUSES = _terms(
    ("queued", "Queued", "pending", "…"),
    ("running", "Running", "processing", "⟳"),
    ("paused", "Paused", "waiting", "‖"),
    ("finished", "Finished", "complete", "✓"),
    ("cancelled", "Cancelled", "rejected", "⊘"),
)
# A finished run with failed items reads as such, not as a plain success.
INGEST_RUN_FINISHED_WITH_FAILURES = Term("finished", "Finished with failures", "failed", "✗")


def ingest_item_state(code: str | None) -> Term:
    return INGEST_ITEM_STATES.get(code or "") or _unknown(code, "Unknown")


def ingest_run_status(code: str | None, *, failures: int = 0) -> Term:
    if code == "finished" and failures:
        return INGEST_RUN_FINISHED_WITH_FAILURES
    return INGEST_RUN_STATUSES.get(code or "") or _unknown(code, "Unknown")
