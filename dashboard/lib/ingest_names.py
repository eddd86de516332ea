"""What an ingest run takes from a folder: which children are items, their transfer
names, the names the workflow service would refuse, accession patterns and windows."""

from __future__ import annotations

import re
import string
from datetime import datetime, time
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.utils.translation import gettext as _

# Files taken as items beside folders; anything else in the folder is left alone.
ARCHIVE_SUFFIXES = (".tar.gz", ".tar.bz2", ".tar.xz", ".tgz", ".zip", ".7z", ".tar")
# The service names the transfer's directory `<name>-<36-character UUID>`, and a
# directory name holds at most 255 bytes on the file systems it runs on.
NAME_MAX_BYTES = 255 - 37
# Characters no directory name may hold ("/" and NUL) and control characters, which
# the service's shell-based jobs mangle.
_REFUSED = re.compile(r"[/\x00-\x1f\x7f]")
PATTERN_FIELDS = frozenset({"n", "name"})
_WINDOW = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*[-–]\s*(\d{1,2}):(\d{2})\s*$")


def is_item(name: bytes, *, is_directory: bool) -> bool:
    """A folder, or a zip/7z/tar file."""
    if is_directory:
        return True
    lowered = name.lower()
    return any(lowered.endswith(suffix.encode()) for suffix in ARCHIVE_SUFFIXES)


def transfer_name(raw: bytes) -> str:
    """The transfer's name: the child's name without its archive extension; bytes that
    are not UTF-8 show as escapes (and `name_refusal` refuses them)."""
    text = raw.decode("utf-8", "backslashreplace")
    lowered = text.lower()
    for suffix in ARCHIVE_SUFFIXES:
        if lowered.endswith(suffix) and len(text) > len(suffix):
            return text[: -len(suffix)]
    return text


def name_refusal(raw: bytes, name: str) -> str:
    """Why the workflow service would refuse this name ("" when it would take it)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return _("The name is not valid UTF-8, which the workflow service cannot name a transfer.")
    if not name.strip():
        return _("The name is empty.")
    if _REFUSED.search(name):
        return _("The name holds a character the workflow service refuses (a control character).")
    size = len(name.encode("utf-8"))
    if size > NAME_MAX_BYTES:
        return _(
            "The name is %(size)d bytes long; the workflow service takes at most %(most)d."
        ) % {"size": size, "most": NAME_MAX_BYTES}
    return ""


def accession_pattern_error(pattern: str) -> str:
    """Why an accession pattern cannot be used ("" when it can): only `{n}` (with a
    format spec, `{n:04}`) and `{name}` may appear."""
    try:
        fields = [field for _text, field, _spec, _conv in string.Formatter().parse(pattern)]
    except ValueError as exc:
        return _("The accession pattern cannot be read: %(error)s.") % {"error": exc}
    unknown = sorted({f for f in fields if f is not None and f not in PATTERN_FIELDS})
    if unknown:
        return _("The accession pattern may only use {n} and {name}, not {%(field)s}.") % {
            "field": unknown[0] or ""
        }
    try:
        accession_format(pattern, number=1, name="example")
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        return _("The accession pattern cannot be filled in: %(error)s.") % {"error": exc}
    return ""


def accession_format(pattern: str, *, number: int, name: str) -> str:
    return pattern.format(n=number, name=name)[:255]


def window_parse(text: str) -> tuple[time, time] | None:
    """`19:00-07:00` (an en dash too) as two times; None for "" (no window).
    Raises ValueError for anything else."""
    if not text.strip():
        return None
    match = _WINDOW.match(text)
    if match is None:
        raise ValueError(_("Give the window as HH:MM-HH:MM, e.g. 19:00-07:00."))
    hours_a, minutes_a, hours_b, minutes_b = (int(part) for part in match.groups())
    try:
        start, end = time(hours_a, minutes_a), time(hours_b, minutes_b)
    except ValueError:
        raise ValueError(_("The window's times must be between 00:00 and 23:59.")) from None
    if start == end:
        raise ValueError(_("The window starts and ends at the same time."))
    return start, end


def window_text(start: time | None, end: time | None) -> str:
    if start is None or end is None:
        return ""
    return f"{start:%H:%M}-{end:%H:%M}"


def window_open(start: time | None, end: time | None, *, now: datetime, time_zone: str) -> bool:
    """Whether `now` falls in the window, read in the pipeline's time zone; an end
    earlier than the start spans midnight. No window: always open."""
    if start is None or end is None:
        return True
    try:
        zone = ZoneInfo(time_zone or "UTC")
    except (ValueError, ZoneInfoNotFoundError):
        zone = ZoneInfo("UTC")
    local = now.astimezone(zone).time()
    if start < end:
        return start <= local < end
    return local >= start or local < end
