"""The analytics page: figures of a period from the rollups, as charts, tables and CSV."""

from __future__ import annotations

import csv
import io
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext, pgettext_lazy
from django.views.decorators.http import require_GET

from dashboard.forms.analytics import AnalyticsFilterForm
from dashboard.lib import charts, vocabulary
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors import analytics as selectors
from dashboard.selectors import freshness
from dashboard.views.units import role_required


def analytics_for(choices: dict[str, Any]) -> selectors.Analytics:
    period = selectors.period_get(choices["period"], first=choices["start"], last=choices["end"])
    return selectors.analytics_get(period=period, pipeline=choices["pipeline"] or None)


def _seconds(value: float | None) -> str:
    return "" if value is None else f"{value:.0f}"


def csv_tables(data: selectors.Analytics) -> dict[str, list[list[Any]]]:
    """Each chart's numbers as rows, a header first: what the CSV downloads hold."""
    not_covered = "not covered"
    return {
        "throughput": [
            ["period", "transfers_started", "sips_started", "aips_stored", "bytes_stored"]
        ]
        + [
            [
                r.label,
                not_covered if r.transfers_started is None else r.transfers_started,
                not_covered if r.sips_started is None else r.sips_started,
                r.aips_stored,
                r.bytes_stored,
            ]
            for r in data.throughput
        ],
        "stages": [["group", "units", "median_seconds", "p90_seconds", "slowest"]]
        + [
            [r.group, r.count, _seconds(r.median_seconds), _seconds(r.p90_seconds), r.slowest]
            for r in data.stages
        ],
        "waits": [
            [
                "decision",
                "waits_ended",
                "started_as_observed",
                "median_seconds",
                "p90_seconds",
                "waiting_now",
                "longest_now_seconds",
            ]
        ]
        + [
            [
                r.decision,
                r.count,
                r.observed_count,
                _seconds(r.median_seconds),
                _seconds(r.p90_seconds),
                r.waiting_now,
                _seconds(r.longest_now_seconds),
            ]
            for r in data.waits
        ],
        "approvals": [["period", "approvals"]]
        + [[r.label, not_covered if r.count is None else r.count] for r in data.approvals],
        "failures": [["group", "runs", "failures", "rate"]]
        + [[r.group, r.runs, r.failures, f"{r.rate:.4f}"] for r in data.failure_groups],
        "failed-jobs": [["group", "job", "runs", "failures", "rate"]]
        + [[r.group, r.job, r.runs, r.failures, f"{r.rate:.4f}"] for r in data.failure_jobs],
        "queue": [["time", "active", "waiting"]]
        + [
            [
                r.label,
                not_covered if r.active is None else r.active,
                not_covered if r.waiting is None else r.waiting,
            ]
            for r in data.queue
        ],
    }


# The name of each CSV column in words, for `?headers=localized`; the keys stay the
# default first row, so that programs reading the CSV never depend on a language.
CSV_COLUMNS = {
    "period": pgettext_lazy("CSV column", "Period"),
    "transfers_started": pgettext_lazy("CSV column", "Transfers started"),
    "sips_started": pgettext_lazy("CSV column", "SIPs started"),
    "aips_stored": pgettext_lazy("CSV column", "AIPs stored"),
    "bytes_stored": pgettext_lazy("CSV column", "Bytes stored"),
    "group": pgettext_lazy("CSV column", "Microservice group"),
    "units": pgettext_lazy("CSV column", "Units"),
    "median_seconds": pgettext_lazy("CSV column", "Median (seconds)"),
    "p90_seconds": pgettext_lazy("CSV column", "90th percentile (seconds)"),
    "slowest": pgettext_lazy("CSV column", "Among the slowest"),
    "decision": pgettext_lazy("CSV column", "Decision"),
    "waits_ended": pgettext_lazy("CSV column", "Waits ended"),
    "started_as_observed": pgettext_lazy("CSV column", "Start first seen by Lookout"),
    "waiting_now": pgettext_lazy("CSV column", "Waiting now"),
    "longest_now_seconds": pgettext_lazy("CSV column", "Longest wait now (seconds)"),
    "approvals": pgettext_lazy("CSV column", "Approvals"),
    "runs": pgettext_lazy("CSV column", "Runs"),
    "failures": pgettext_lazy("CSV column", "Failures"),
    "rate": pgettext_lazy("CSV column", "Failure rate"),
    "job": pgettext_lazy("CSV column", "Job"),
    "time": pgettext_lazy("CSV column", "Time"),
    "active": pgettext_lazy("CSV column", "Active"),
    "waiting": pgettext_lazy("CSV column", "Waiting for a decision"),
}


def localized_headers(rows: list[list[Any]]) -> list[list[Any]]:
    """The same table with its first row in the active language."""
    header, *body = rows
    return [[str(CSV_COLUMNS.get(key, key)) for key in header], *body]


def _csv_response(name: str, rows: list[list[Any]]) -> HttpResponse:
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    response = HttpResponse(out.getvalue(), content_type="text/csv; charset=utf-8")
    stamp = timezone.localdate().isoformat()
    response["Content-Disposition"] = f'attachment; filename="lookout-{name}-{stamp}.csv"'
    return response


def _charts(data: selectors.Analytics) -> dict[str, Any]:
    throughput = data.throughput
    labels = [r.label for r in throughput]
    period = data.period.label.lower()
    total = data.total
    return {
        "transfers": charts.column_chart(
            [r.transfers_started for r in throughput],
            labels,
            title=_("Transfers started"),
            desc=ngettext(
                "%(count)s transfer started, %(period)s.",
                "%(count)s transfers started, %(period)s.",
                total["transfers_started"] or 0,
            )
            % {"count": vocabulary.number(total["transfers_started"] or 0), "period": period},
        ),
        "aips": charts.column_chart(
            [r.aips_stored for r in throughput],
            labels,
            title=_("AIPs stored"),
            desc=ngettext(
                "%(count)s AIP stored, %(size)s, %(period)s.",
                "%(count)s AIPs stored, %(size)s, %(period)s.",
                total["aips_stored"] or 0,
            )
            % {
                "count": vocabulary.number(total["aips_stored"] or 0),
                "size": vocabulary.filesize(total["bytes_stored"]),
                "period": period,
            },
        ),
        "stages": charts.bar_chart(
            [(r.group, r.median_seconds, r.p90_seconds, r.slowest) for r in data.stages],
            title=_("Time per microservice group"),
            desc=_(
                "Median (bar) and 90th percentile (tick) per group, in workflow order; "
                "the slowest groups are highlighted. The table below has the numbers."
            ),
        ),
        "waits": charts.bar_chart(
            [(r.decision, r.median_seconds, r.p90_seconds, False) for r in data.waits],
            title=_("Waiting for people"),
            desc=_("Median (bar) and 90th percentile (tick) wait per decision."),
        ),
        "failures": charts.bar_chart(
            [(r.group, r.rate, None, r.failures > 0) for r in data.failure_groups],
            title=_("Failure rate per group"),
            desc=_("Share of units that failed in each group; the table has the counts."),
        ),
        "queue": charts.line_chart(
            [
                ("active", [r.active for r in data.queue]),
                ("waiting", [r.waiting for r in data.queue]),
            ],
            title=_("Units active and waiting"),
            desc=_("Units active and waiting for a decision, by %(step)s.")
            % {"step": data.queue_by_label},
        ),
    }


@role_required
@require_GET
def analytics_page(request: HtmxHttpRequest) -> HttpResponse:
    form = AnalyticsFilterForm(request.GET or None)
    choices = form.choices()
    data = analytics_for(choices)
    if choices["csv"]:
        rows = csv_tables(data)[choices["csv"]]
        if choices["localized_headers"]:
            rows = localized_headers(rows)
        return _csv_response(choices["csv"], rows)
    query = request.GET.copy()
    query.pop("csv", None)
    pipelines = pipeline_list()
    return render(
        request,
        "dashboard/analytics.html",
        {
            "section": "analytics",
            "form": form,
            "data": data,
            "charts": _charts(data),
            "query": query.urlencode(),
            "pipeline_name": {p.slug: p.name for p in pipelines}.get(choices["pipeline"], ""),
            "pipeline": choices["pipeline"],
            "multiple_pipelines": len(pipelines) > 1,
            "freshness": freshness.page_freshness(include_storage=True),
            "rendered_at": timezone.now(),
        },
    )
