"""Whether the LDAP directory answered, as the last login or health probe found it.

A login that could not reach the directory marks its request, so the login form says
"the directory could not be reached" rather than "wrong password"; the outcome is also
kept in the cache, where /healthz reads it between its own probes.
"""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

STATUS_KEY = "lookout:ldap-directory-status"
_REQUEST_FLAG = "_lookout_directory_unreachable"
# Long enough for /healthz to read between probes; the probe decides what is fresh.
KEPT_SECONDS = 3600


@dataclass(frozen=True)
class DirectoryStatus:
    ok: bool
    reason: str
    checked_at: float  # time.time()


def status_record(*, ok: bool, reason: str) -> DirectoryStatus:
    status = DirectoryStatus(ok=ok, reason=reason, checked_at=time.time())
    # A cache that is down must not turn a login into a 500 (/healthz says it is down).
    with contextlib.suppress(Exception):
        cache.set(STATUS_KEY, status, KEPT_SECONDS)
    return status


def status_last() -> DirectoryStatus | None:
    try:
        found = cache.get(STATUS_KEY)
    except Exception:  # the cache being down is /healthz's own check
        return None
    return found if isinstance(found, DirectoryStatus) else None


def unreachable_mark(request: Any, reason: str) -> None:
    if request is not None:
        setattr(request, _REQUEST_FLAG, True)
    status_record(ok=False, reason=reason)


def unreachable_during(request: Any) -> bool:
    return bool(getattr(request, _REQUEST_FLAG, False))


def ldap_error_text(exc: BaseException) -> str:
    """python-ldap puts a dict in its exceptions' args: its `desc` (and `info`) say what
    went wrong in words; never a password."""
    detail = exc.args[0] if exc.args else None
    if isinstance(detail, dict):
        text = str(detail.get("desc") or type(exc).__name__)
        info = detail.get("info")
        return f"{text} ({info})" if info else text
    return str(exc) or type(exc).__name__
