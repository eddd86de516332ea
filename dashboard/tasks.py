"""Celery entry points: thin wrappers that take a lock and call one service.

Each poll holds a cache lock slightly shorter-lived than its hard time limit, so an
overlapping run skips quietly and a dead worker never blocks polling for long.

The `*_enqueue` functions at the end are how views and the API queue work: services
never import this module, so a service that needs work queued takes a callable.
"""

from __future__ import annotations

import base64
import logging

from celery import shared_task
from celery.exceptions import SoftTimeLimitExceeded
from celery.signals import worker_ready
from django.conf import settings
from django.core.cache import cache
from kombu.exceptions import OperationalError as BrokerError

from dashboard.lib import cache_state
from dashboard.lib.pipelines import PipelineConfig, pipeline_get, pipeline_list
from dashboard.selectors import levels as level_selectors
from dashboard.selectors import processing_configs as config_selectors
from dashboard.services import actions as action_services
from dashboard.services import alerts as alert_services
from dashboard.services import bulk_hide
from dashboard.services import ingest_cycle as ingest_services
from dashboard.services import levels as level_services
from dashboard.services import processing_configs as config_services
from dashboard.services import storage as storage_services
from dashboard.services import units as unit_services
from dashboard.services.locks import task_lock

log = logging.getLogger(__name__)

SOFT_LIMIT = 50
HARD_LIMIT = 60


@shared_task(ignore_result=True)
def poll_workflow() -> None:
    """Fan out one poll per configured pipeline, so pipelines never wait on each other."""
    for pipeline in pipeline_list():
        poll_pipeline.delay(pipeline.slug)


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def poll_pipeline(slug: str) -> str:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        log.warning("poll of unknown pipeline %r ignored", slug)
        return "unknown pipeline"
    with task_lock(f"poll-workflow:{slug}", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        line = unit_services.workflow_poll(pipeline=pipeline).line()
        line += _settled_line(pipeline.slug)
        # Bulk hides whose undo window has passed go upstream at poll time.
        line += "; " + bulk_hide.hide_upstream_due(pipeline=slug).line()
    return f"{line}; {alerts_after_poll()}"


def _settled_line(slug: str) -> str:
    """Settle timed-out approvals from the poll just made; a note when some were."""
    settled = action_services.timed_out_approvals_settle(pipeline=slug)
    return f"; {settled} timed-out approval(s) settled" if settled else ""


@shared_task(ignore_result=True)
def refresh_jobs() -> None:
    for pipeline in pipeline_list():
        refresh_pipeline_jobs.delay(pipeline.slug)


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def refresh_pipeline_jobs(slug: str) -> str:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return "unknown pipeline"
    with task_lock(f"refresh-jobs:{slug}", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        line = unit_services.jobs_refresh(pipeline=pipeline).line()
    # The jobs name a failed unit's failed job and time: what a failure alert waits for.
    return f"{line}; {alerts_after_poll()}"


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def poll_storage() -> str:
    with task_lock("poll-storage", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        line = storage_services.storage_poll().line()
    return f"{line}; {alerts_after_poll()}"


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def check_ldap_accounts() -> str:
    """LDAP accounts the directory no longer has lose their roles (and their tokens' use)."""
    from dashboard.services.directory_accounts import ldap_accounts_check

    with task_lock("check-ldap-accounts", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        return ldap_accounts_check()


# --- ingest runs: one scheduling cycle per poll interval -------------------------------

# Shorter than the time limit on purpose: a worker killed mid-cycle holds the lock for
# this long at most, and two cycles at once are safe (items are claimed row by row).
INGEST_LOCK_SECONDS = 20


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def run_ingest_cycle() -> str:
    with task_lock("ingest-cycle", ttl=INGEST_LOCK_SECONDS) as acquired:
        if not acquired:
            return "skipped"
        return ingest_services.ingest_cycle().line()


# --- alerts: evaluated after every poll, sent from the outbox ------------------------

ALERTS_HARD_LIMIT = 60
# The sending task's hard time limit; claims outlive it (services.alerts.delivery_limits).
DELIVERY_HARD_LIMIT = settings.LOOKOUT_ALERT_DELIVERY_SECONDS


def alerts_after_poll() -> str:
    """Evaluate the rules against what the poll stored, then queue the sending.

    Called at the end of each poll task (no scheduler of its own, so it works with the
    embedded default). One evaluation at a time; a poll that finds one running skips, and
    the next poll catches up.
    """
    # Sending is queued either way: a lock left by a worker that died mid-evaluation must
    # not hold back the messages already in the outbox.
    with task_lock("alerts-evaluate", ttl=ALERTS_HARD_LIMIT - 1) as acquired:
        line = (
            alert_services.alerts_evaluate().line()
            if acquired
            else "alerts: skipped (another evaluation is running)"
        )
    deliver_alerts_enqueue()
    return line


# acks_late and reject_on_worker_lost: a run lost with its worker goes back to the queue
# (the outbox is the record; the queued task only says "look at it").
@shared_task(
    ignore_result=True, acks_late=True, reject_on_worker_lost=True, time_limit=DELIVERY_HARD_LIMIT
)
def deliver_alerts() -> str:
    """Send due outbox messages. Each row is claimed by a conditional UPDATE with a lease
    longer than this task can live, so two workers (or a redelivered task) never send one
    message at once; failures are retried with backoff by the next run (every poll queues
    one). No soft limit: the run stops claiming in time instead of breaking off a send."""
    return alert_services.outbox_deliver_due().line()


def deliver_alerts_enqueue() -> None:
    try:
        deliver_alerts.delay()
    except (BrokerError, OSError) as exc:
        # The messages stay in the outbox; the next poll queues the sending again.
        log.warning("could not enqueue alert delivery: %s", exc)


@worker_ready.connect
def poll_everything_at_start(**kwargs: object) -> None:
    """Fill the cache as soon as a worker starts, instead of after the first interval."""
    poll_workflow.delay()
    refresh_jobs.delay()
    poll_storage.delay()


# --- storage: fixity checks and package details ---------------------------------

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
            check_id=check_id,
            reason=f"No answer within {FIXITY_SOFT_LIMIT // 60} minutes.",
            timed_out=True,
        )
        return "timed out"
    if check.error:
        return f"error: {check.error}"
    return {True: "passed", False: "failed", None: "not checked"}[check.success]


@shared_task(ignore_result=True, soft_time_limit=DETAILS_SOFT_LIMIT, time_limit=DETAILS_HARD_LIMIT)
def fetch_package_details(package_uuid: str) -> str:
    # One fetch per package at a time, however many people open its page.
    with task_lock(f"package-details:{package_uuid}", ttl=DETAILS_HARD_LIMIT) as acquired:
        if not acquired:
            return "skipped"
        return storage_services.package_details_fetch(uuid=package_uuid)


# --- storage: browse listings ---------------------------------------------------------

# One attempt with the short browse timeout fits well inside these.
LISTING_SOFT_LIMIT = 20
LISTING_HARD_LIMIT = 30


@shared_task(ignore_result=True, soft_time_limit=LISTING_SOFT_LIMIT, time_limit=LISTING_HARD_LIMIT)
def fetch_location_listing(location_uuid: str, path_b64: str) -> str:
    """Fetch one directory of a location into the cache; `path_b64` is its raw path in
    standard base64 (the bytes need not be UTF-8, and task arguments travel as JSON)."""
    path = base64.b64decode(path_b64)
    # One fetch per directory at a time, however many people have it open.
    name = f"location-listing:{cache_state.listing_id(location_uuid, path)}"
    with task_lock(name, ttl=LISTING_HARD_LIMIT) as acquired:
        if not acquired:
            return "skipped"
        listing = storage_services.location_listing_fetch(location_uuid=location_uuid, path=path)
        if listing["error"]:
            return f"error: {listing['error']}"
        return "fetched"


# --- workflow: processing configurations ------------------------------------------


@shared_task(ignore_result=True, soft_time_limit=LISTING_SOFT_LIMIT, time_limit=LISTING_HARD_LIMIT)
def fetch_processing_config(pipeline: str, name: str) -> str:
    """Fetch one processing configuration's XML into the cache for its page."""
    with task_lock(f"processing-config:{pipeline}:{name}", ttl=LISTING_HARD_LIMIT) as acquired:
        if not acquired:
            return "skipped"
        stored = config_services.processing_config_fetch(pipeline=pipeline, name=name)
        return f"error: {stored['error']}" if stored["error"] else "fetched"


@shared_task(ignore_result=True, soft_time_limit=LISTING_SOFT_LIMIT, time_limit=LISTING_HARD_LIMIT)
def fetch_processing_config_names(pipeline: str) -> str:
    """List the pipeline's processing configuration names from its service."""
    stored = config_services.processing_config_names_fetch(pipeline=pipeline)
    return f"error: {stored['error']}" if stored["error"] else "listed"


def processing_config_names_shown(pipeline: PipelineConfig) -> tuple[str, ...]:
    """The names for a page or the API (the configured ones until the service listed
    some); a listing is queued when the stored one is missing or stale."""
    due = config_selectors.processing_config_names_stale(pipeline=pipeline.slug)
    if due and config_services.processing_config_names_request(pipeline=pipeline.slug):
        try:
            fetch_processing_config_names.delay(pipeline.slug)
        except (BrokerError, OSError) as exc:
            log.warning("could not queue the configuration names of %s: %s", pipeline.slug, exc)
    return config_selectors.processing_config_names(pipeline=pipeline)


# --- workflow: levels of description and arranged paths' levels ----------------------


@shared_task(ignore_result=True, soft_time_limit=LISTING_SOFT_LIMIT, time_limit=LISTING_HARD_LIMIT)
def fetch_levels(pipeline: str) -> str:
    with task_lock(f"levels:{pipeline}", ttl=LISTING_HARD_LIMIT) as acquired:
        if not acquired:
            return "skipped"
        stored = level_services.levels_fetch(pipeline=pipeline)
        return f"error: {stored['error']}" if stored["error"] else "fetched"


@shared_task(ignore_result=True, soft_time_limit=LISTING_SOFT_LIMIT, time_limit=LISTING_HARD_LIMIT)
def fetch_path_metadata(pipeline: str, path: str) -> str:
    stored = level_services.path_metadata_fetch(pipeline=pipeline, path=path)
    return f"error: {stored['error']}" if stored["error"] else "fetched"


# --- queueing, for views and the API ------------------------------------------------

# Seconds between two jobs-refresh tasks queued because someone opened a unit page.
JOBS_FETCH_ENQUEUE_PAUSE = 5
# Seconds between two fetches of one package's details queued by its page.
DETAILS_REQUEST_PAUSE = 60


def poll_pipeline_enqueue(slug: str) -> None:
    """Ask the worker for a poll of one pipeline now, so the pages show an action soon."""
    try:
        poll_pipeline.delay(slug)
    except (BrokerError, OSError) as exc:
        # The scheduled poll catches up anyway; the action itself succeeded.
        log.warning("could not enqueue a poll of %s after an action: %s", slug, exc)


def poll_storage_enqueue() -> None:
    """Ask the worker for a storage poll now; the scheduled one catches up otherwise."""
    try:
        poll_storage.delay()
    except (BrokerError, OSError) as exc:
        log.warning("could not enqueue a storage poll after an action: %s", exc)


def jobs_fetch_enqueue(pipeline: str, unit_uuid: str) -> None:
    """Someone opened a unit whose jobs Lookout has not fetched: fetch them soon.

    Only the cache and the broker are touched; the upstream call happens in the worker.
    """
    unit_services.unit_jobs_request(pipeline=pipeline, uuid=unit_uuid)
    # A page reloaded in a loop must not fill the queue: one task every few seconds
    # takes every request made meanwhile (and the scheduled refresh takes the rest).
    marker = f"jobs-fetch-enqueued:{pipeline}"
    if not cache.add(marker, True, JOBS_FETCH_ENQUEUE_PAUSE):
        return
    try:
        refresh_pipeline_jobs.delay(pipeline)
    except (BrokerError, OSError) as exc:
        cache.delete(marker)
        log.warning("could not enqueue a jobs refresh of %s: %s", pipeline, exc)


def package_details_enqueue(uuid: str) -> bool:
    """Queue a fetch of contents and pointer file, at most once a minute per package.

    Returns whether a fetch was queued. The page shows the result when it arrives.
    """
    marker = f"storage:details-requested:{uuid}"
    if not cache.add(marker, True, DETAILS_REQUEST_PAUSE):
        return False
    try:
        fetch_package_details.delay(uuid)
    except (BrokerError, OSError) as exc:
        log.warning("could not queue the details of package %s: %s", uuid, exc)
        cache.delete(marker)
        return False
    return True


def location_listing_enqueue(location_uuid: str, path: bytes) -> bool:
    """Queue a fetch of one directory listing, unless one is already queued or running.

    Returns whether a fetch was queued. However often the page is loaded, polled or
    refreshed, one fetch per directory is under way at a time; the browse page polls
    until the listing is stored.
    """
    # Noted before queueing: a worker may store the listing before `delay` returns.
    if not storage_services.location_listing_request(location_uuid=location_uuid, path=path):
        return False
    try:
        fetch_location_listing.delay(location_uuid, base64.b64encode(path).decode("ascii"))
    except (BrokerError, OSError) as exc:
        log.warning("could not queue a listing of location %s: %s", location_uuid, exc)
        storage_services.location_listing_request_dropped(location_uuid=location_uuid, path=path)
        return False
    return True


def fixity_check_enqueue(check_id: int) -> None:
    """Queue a recorded fixity check; if the broker refuses, the check says why."""
    try:
        check_package_fixity.delay(check_id)
    except (BrokerError, OSError) as exc:
        storage_services.fixity_check_fail(
            check_id=check_id, reason=f"The check could not be queued: {exc}"
        )


def processing_config_enqueue(pipeline: str, name: str) -> bool:
    """Queue a fetch of one processing configuration unless one is under way."""
    if not config_services.processing_config_request(pipeline=pipeline, name=name):
        return False
    try:
        fetch_processing_config.delay(pipeline, name)
    except (BrokerError, OSError) as exc:
        log.warning("could not queue processing configuration %s of %s: %s", name, pipeline, exc)
        config_services.processing_config_request_dropped(pipeline=pipeline, name=name)
        return False
    return True


def processing_config_shown(
    pipeline: str, name: str, *, refresh: bool = False
) -> tuple[config_selectors.StoredConfig | None, bool]:
    """The stored configuration for a page or the API, and whether a fetch is under way;
    one is queued when none is stored, it is stale, or `refresh` asks for it."""
    stored = config_selectors.processing_config_get(pipeline=pipeline, name=name)
    queued = False
    if refresh or stored is None or stored.stale:
        queued = processing_config_enqueue(pipeline, name)
    return stored, stored is None or stored.refreshing or queued


def levels_shown(pipeline: str) -> tuple[level_selectors.StoredLevels | None, bool]:
    """The stored levels and whether a fetch is under way (one is queued when due)."""
    stored = level_selectors.levels_get(pipeline=pipeline)
    queued = False
    if (stored is None or stored.stale) and level_services.levels_request(pipeline=pipeline):
        try:
            fetch_levels.delay(pipeline)
            queued = True
        except (BrokerError, OSError) as exc:
            log.warning("could not queue the levels of %s: %s", pipeline, exc)
            level_services.levels_request_dropped(pipeline=pipeline)
    return stored, stored is None or stored.refreshing or queued


def path_metadata_shown(
    pipeline: str, path: str
) -> tuple[level_selectors.StoredPathMetadata | None, bool]:
    """An arranged path's stored level and whether a fetch is under way."""
    stored = level_selectors.path_metadata_get(pipeline=pipeline, path=path)
    queued = False
    due = stored is None or stored.stale
    if due and level_services.path_metadata_request(pipeline=pipeline, path=path):
        try:
            fetch_path_metadata.delay(pipeline, path)
            queued = True
        except (BrokerError, OSError) as exc:
            log.warning("could not queue the metadata of %s: %s", path, exc)
            level_services.path_metadata_request_dropped(pipeline=pipeline, path=path)
    return stored, stored is None or stored.refreshing or queued
