"""Writes for the storage service: the poller that caches pipelines, spaces, locations
and package counts."""

from __future__ import annotations

import logging
import time
from datetime import datetime

from django.utils import timezone

from dashboard import state
from dashboard.clients.base import UpstreamError
from dashboard.clients.storage import StorageClient, get_storage_client
from dashboard.services import PollSummary, plain, service_poll_record

log = logging.getLogger(__name__)

SUMMARY_PACKAGE_TYPES = ("AIP", "AIC", "DIP", "transfer")


def storage_poll(*, client: StorageClient | None = None, now: datetime | None = None) -> PollSummary:
    """Pipelines, spaces, locations and package counts: a handful of requests per cycle."""
    now = now or timezone.now()
    service = "storage"
    started = time.monotonic()
    requests = 0
    try:
        client = client or get_storage_client()
        pipelines = list(client.list_pipelines())
        spaces = list(client.list_spaces())
        locations = list(client.list_locations())
        requests += 3
        package_counts = {}
        for package_type in SUMMARY_PACKAGE_TYPES:
            page = client.list_packages_page(offset=0, limit=1, package_type=package_type)
            package_counts[package_type] = page.total_count
            requests += 1
        deletion_requests = client.list_packages_page(offset=0, limit=1, status="DEL_REQ")
        requests += 1
    except UpstreamError as exc:
        log.warning("storage poll failed: %s", exc)
        duration_ms = int((time.monotonic() - started) * 1000)
        service_poll_record(
            service=service, started_at=now, ok=False, error=str(exc),
            duration_ms=duration_ms, requests=requests + 1,
        )
        return PollSummary(service=service, ok=False, requests=requests + 1,
                           duration_ms=duration_ms, error=str(exc))
    state.storage_summary_save(
        {
            "fetched_at": now,
            "pipelines": plain(pipelines),
            "spaces": plain(spaces),
            "locations": plain(locations),
            "package_counts": package_counts,
            "deletion_requests": deletion_requests.total_count,
        }
    )
    state.generation_bump()
    duration_ms = int((time.monotonic() - started) * 1000)
    service_poll_record(
        service=service, started_at=now, ok=True, error="", duration_ms=duration_ms,
        requests=requests,
    )
    return PollSummary(
        service=service, ok=True, requests=requests, refreshed=len(locations),
        duration_ms=duration_ms,
    )
