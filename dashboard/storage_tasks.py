"""Celery entry points for the storage pages: fixity checks and package details.

Thin wrappers around `dashboard.storage_services`; `dashboard.tasks` imports this
module so the worker registers them.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded

from dashboard import storage_services
from dashboard.clients.storage import StorageError
from dashboard.locks import cache_lock

log = logging.getLogger(__name__)

# A fixity check reads the whole package on the storage side: give it time.
FIXITY_SOFT_LIMIT = 15 * 60
FIXITY_HARD_LIMIT = FIXITY_SOFT_LIMIT + 60
DETAILS_SOFT_LIMIT = 50
DETAILS_HARD_LIMIT = 60


@shared_task(ignore_result=True, soft_time_limit=FIXITY_SOFT_LIMIT, time_limit=FIXITY_HARD_LIMIT)
def check_package_fixity(check_id: int) -> str:
    try:
        check = storage_services.fixity_check_run(check_id=check_id)
    except SoftTimeLimitExceeded:
        storage_services.fixity_check_fail(
            check_id=check_id, reason=f"No answer within {FIXITY_SOFT_LIMIT // 60} minutes."
        )
        return "timed out"
    if check.error:
        return f"error: {check.error}"
    return {True: "passed", False: "failed", None: "not checked"}[check.success]


@shared_task(ignore_result=True, soft_time_limit=DETAILS_SOFT_LIMIT, time_limit=DETAILS_HARD_LIMIT)
def fetch_package_details(package_uuid: str) -> str:
    # One fetch per package at a time, however many people open its page.
    with cache_lock(f"package-details:{package_uuid}", ttl=DETAILS_HARD_LIMIT) as acquired:
        if not acquired:
            return "skipped"
        try:
            storage_services.package_details_refresh(uuid=package_uuid)
        except StorageError as exc:
            log.warning("details of package %s not fetched: %s", package_uuid, exc)
            return f"error: {exc}"
        return "fetched"
