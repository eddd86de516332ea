"""`/metrics`: Prometheus text format for the monitoring stack, behind a bearer token.

No LOOKOUT_METRICS_TOKEN configured: 404 (the endpoint does not exist). A missing token:
401 with `WWW-Authenticate: Bearer`; a wrong one: 403. A custom collector turns one
database snapshot into metric families, in a registry made per scrape (no global state,
so every web process answers the same).

`lookout_poll_duration_seconds` is a gauge of the last poll's duration: Lookout keeps
only the last duration per service, and a histogram cannot be built honestly from it.
"""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from dashboard.selectors.metrics import MetricsSnapshot, metrics_snapshot

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


class LookoutCollector(Collector):
    def __init__(self, snapshot: MetricsSnapshot) -> None:
        self.snapshot = snapshot

    def collect(self) -> Iterator[Metric]:
        s = self.snapshot
        units = GaugeMetricFamily(
            "lookout_units",
            "Visible units by pipeline and status (what /api/v1/units/ lists)",
            labels=["pipeline", "status"],
        )
        for (pipeline, status), count in sorted(s.units.items()):
            units.add_metric([pipeline, status], count)
        yield units

        waiting = GaugeMetricFamily(
            "lookout_units_waiting", "Units waiting for a decision", labels=["pipeline"]
        )
        oldest = GaugeMetricFamily(
            "lookout_oldest_wait_seconds",
            "How long the longest-waiting unit has waited for a decision",
            labels=["pipeline"],
        )
        pipelines = sorted({p for p, _ in s.units} | set(s.waiting))
        for pipeline in pipelines:
            waiting.add_metric([pipeline], s.waiting.get(pipeline, 0))
            oldest.add_metric([pipeline], s.oldest_wait_seconds.get(pipeline, 0.0))
        yield waiting
        yield oldest

        failures = CounterMetricFamily(
            "lookout_failures", "Units seen failing (status changes to FAILED)", labels=["pipeline"]
        )
        for pipeline in sorted(set(pipelines) | set(s.failures)):
            failures.add_metric([pipeline], s.failures.get(pipeline, 0))
        yield failures

        duration = GaugeMetricFamily(
            "lookout_poll_duration_seconds",
            "Duration of the last poll of each upstream service",
            labels=["service"],
        )
        polls = CounterMetricFamily("lookout_polls", "Polls attempted", labels=["service"])
        errors = CounterMetricFamily("lookout_poll_errors", "Polls that failed", labels=["service"])
        success = GaugeMetricFamily(
            "lookout_last_success_timestamp_seconds",
            "Unix time of the last successful poll",
            labels=["service"],
        )
        for service in s.services:
            if service.last_duration_seconds is not None:
                duration.add_metric([service.service], service.last_duration_seconds)
            polls.add_metric([service.service], service.attempts)
            errors.add_metric([service.service], service.errors)
            if service.last_success_at is not None:
                success.add_metric([service.service], service.last_success_at.timestamp())
        yield from (duration, polls, errors, success)

        for kind in ("space", "location"):
            used = GaugeMetricFamily(
                f"lookout_storage{'' if kind == 'space' else '_location'}_used_bytes",
                f"Bytes used in each storage {kind}",
                labels=[kind, "name"],
            )
            capacity = GaugeMetricFamily(
                f"lookout_storage{'' if kind == 'space' else '_location'}_capacity_bytes",
                f"Size (space) or quota (location) of each storage {kind}; absent if unlimited",
                labels=[kind, "name"],
            )
            for store in s.stores:
                if store.kind != kind:
                    continue
                if store.used is not None:
                    used.add_metric([store.uuid, store.name], store.used)
                if store.capacity:
                    capacity.add_metric([store.uuid, store.name], store.capacity)
            yield used
            yield capacity

        yield _gauge(
            "lookout_alerts_open",
            "Open, unsilenced alerts that were announced, by rule kind",
            ["kind"],
            {(kind,): count for kind, count in sorted(s.alerts_open.items())},
        )
        yield _gauge(
            "lookout_alerts_baseline_open",
            "Open alerts already there when Lookout first looked (never announced)",
            ["kind"],
            {(kind,): count for kind, count in sorted(s.alerts_baseline_open.items())},
        )
        yield _gauge(
            "lookout_ingest_items",
            "Items of each ingest run by state",
            ["run", "state"],
            {(str(run), state): count for (run, state), count in sorted(s.ingest_items.items())},
        )
        yield _gauge(
            "lookout_ingest_in_flight",
            "Ingest items starting, processing or waiting, by pipeline",
            ["pipeline"],
            {(pipeline,): count for pipeline, count in sorted(s.ingest_in_flight.items())},
        )


def _gauge(
    name: str, documentation: str, labels: list[str], values: dict[tuple[str, ...], int]
) -> GaugeMetricFamily:
    """A gauge family with one sample per label values, in the order given."""
    family = GaugeMetricFamily(name, documentation, labels=labels)
    for key, count in values.items():
        family.add_metric(list(key), count)
    return family


def _refused(status: int) -> HttpResponse:
    response = HttpResponse(
        "A valid bearer token is needed.\n", status=status, content_type="text/plain"
    )
    if status == 401:
        response["WWW-Authenticate"] = 'Bearer realm="lookout-metrics"'
    return response


@never_cache
@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    expected = str(getattr(settings, "LOOKOUT_METRICS_TOKEN", "") or "")
    if not expected:
        raise Http404("Metrics are not enabled.")
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or not given.strip():
        return _refused(401)
    if not hmac.compare_digest(given.strip().encode(), expected.encode()):
        return _refused(403)
    registry = CollectorRegistry(auto_describe=False)
    registry.register(LookoutCollector(metrics_snapshot()))
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE)
