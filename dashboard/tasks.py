"""Celery entry points: thin wrappers that take a lock and call one service.

Each poll holds a cache lock slightly shorter-lived than its hard time limit, so an
overlapping run skips quietly and a dead worker never blocks polling for long.
"""

from __future__ import annotations

import logging

from celery import shared_task
from celery.signals import worker_ready

from dashboard import (
    services,
    storage_services,
    storage_tasks,  # noqa: F401  (registers the package-operation tasks)
)
from dashboard.locks import cache_lock
from dashboard.pipelines import pipeline_get, pipeline_list

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
    with cache_lock(f"poll-workflow:{slug}", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        return services.workflow_poll(pipeline=pipeline).line()


@shared_task(ignore_result=True)
def refresh_jobs() -> None:
    for pipeline in pipeline_list():
        refresh_pipeline_jobs.delay(pipeline.slug)


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def refresh_pipeline_jobs(slug: str) -> str:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return "unknown pipeline"
    with cache_lock(f"refresh-jobs:{slug}", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        return services.jobs_refresh(pipeline=pipeline).line()


@shared_task(ignore_result=True, soft_time_limit=SOFT_LIMIT, time_limit=HARD_LIMIT)
def poll_storage() -> str:
    with cache_lock("poll-storage", ttl=HARD_LIMIT - 1) as acquired:
        if not acquired:
            return "skipped"
        return storage_services.storage_poll().line()


@worker_ready.connect
def poll_everything_at_start(**kwargs: object) -> None:
    """Fill the cache as soon as a worker starts, instead of after the first interval."""
    poll_workflow.delay()
    refresh_jobs.delay()
    poll_storage.delay()
