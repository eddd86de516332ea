"""URLs of the ingest run pages, under `ingest-runs/` (namespace `dashboard`)."""

from __future__ import annotations

from django.urls import path

from dashboard.views import ingest_runs

urlpatterns = [
    path("", ingest_runs.run_list, name="ingest-run-list"),
    path("new/", ingest_runs.new_source, name="ingest-run-new"),
    path("new/browse/", ingest_runs.new_browse, name="ingest-run-browse"),
    path("new/details/", ingest_runs.new_details, name="ingest-run-details"),
    path("new/submit/", ingest_runs.new_submit, name="ingest-run-submit"),
    path("<int:run_id>/", ingest_runs.run_detail, name="ingest-run-detail"),
    path("<int:run_id>/report.csv", ingest_runs.run_report, name="ingest-run-report"),
]
for action in ingest_runs.STEER_ACTIONS:
    urlpatterns += [
        path(
            f"<int:run_id>/{action.slug}/",
            ingest_runs.steer_confirm,
            {"slug": action.slug},
            name=f"ingest-run-{action.slug}-confirm",
        ),
        path(
            f"<int:run_id>/{action.slug}/do/",
            ingest_runs.steer,
            {"slug": action.slug},
            name=f"ingest-run-{action.slug}",
        ),
    ]
