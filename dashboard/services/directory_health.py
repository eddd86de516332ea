"""The LDAP directory's /healthz check: probed at most every FRESH_SECONDS.

A login that reached (or could not reach) the directory records that too, so a busy
instance rarely probes; an idle one probes once per FRESH_SECONDS whatever polls it,
each probe bounded by LOOKOUT_LDAP_TIMEOUT.
"""

from __future__ import annotations

import time

from dashboard.clients.ldap_directory import DirectoryUnreachable, directory_probe
from dashboard.lib.directory_status import DirectoryStatus, status_last, status_record
from dashboard.selectors.health import Check
from dashboard.services.directory_accounts import directory_server

FRESH_SECONDS = 30
CHECK_NAME = "directory:ldap"


def _probe() -> DirectoryStatus:
    try:
        directory_probe(directory_server())
    except DirectoryUnreachable as exc:
        return status_record(ok=False, reason=str(exc))
    return status_record(ok=True, reason="answers")


def ldap_directory_check(*, details: bool) -> Check:
    status = status_last()
    if status is None or time.time() - status.checked_at > FRESH_SECONDS:
        status = _probe()
    if status.ok:
        return Check(CHECK_NAME, True, "answers")
    return Check(CHECK_NAME, False, f"no answer: {status.reason}" if details else "no answer")
