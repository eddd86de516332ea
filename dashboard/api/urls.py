from __future__ import annotations

from django.urls import path
from drf_spectacular.views import SpectacularAPIView

from dashboard.api import analytics as analytics_apis
from dashboard.api import csv_validation as csv_apis
from dashboard.api import ingest_runs as ingest_apis
from dashboard.api import levels as level_apis
from dashboard.api import metadata_files as metadata_apis
from dashboard.api import processing_configs as config_apis
from dashboard.api import storage as storage_apis
from dashboard.api import summary as summary_apis
from dashboard.api import transfers as transfer_apis
from dashboard.api import unit_hide as hide_apis
from dashboard.api import units as apis
from dashboard.api import workflow_reingest as reingest_apis

app_name = "api"

urlpatterns = [
    path("units/", apis.UnitListApi.as_view(), name="unit-list"),
    path("units/hide/", hide_apis.UnitsHideApi.as_view(), name="units-hide"),
    path(
        "units/hide/<int:audit_id>/undo/",
        hide_apis.UnitsHideUndoApi.as_view(),
        name="units-hide-undo",
    ),
    path("units/<uuid:uuid>/", apis.UnitDetailApi.as_view(), name="unit-detail"),
    path(
        "units/<uuid:uuid>/reingest/",
        reingest_apis.PartialReingestStartApi.as_view(),
        name="reingest-start",
    ),
    path(
        "units/<uuid:uuid>/metadata-files/",
        metadata_apis.MetadataFilesApi.as_view(),
        name="metadata-files",
    ),
    path(
        "units/<uuid:uuid>/reingest/approve/",
        reingest_apis.PartialReingestApproveApi.as_view(),
        name="reingest-approve",
    ),
    path("waiting/", apis.WaitingListApi.as_view(), name="waiting-list"),
    path("analytics/", analytics_apis.AnalyticsApi.as_view(), name="analytics"),
    path("health/", apis.HealthApi.as_view(), name="health"),
    path("summary/", summary_apis.SummaryApi.as_view(), name="summary"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("pipelines/", storage_apis.PipelineListApi.as_view(), name="pipeline-list"),
    path("spaces/", storage_apis.SpaceListApi.as_view(), name="space-list"),
    path("locations/", storage_apis.LocationListApi.as_view(), name="location-list"),
    path("packages/", storage_apis.PackageListApi.as_view(), name="package-list"),
    path("packages/<uuid:uuid>/", storage_apis.PackageDetailApi.as_view(), name="package-detail"),
    path("transfers/", transfer_apis.StartTransferApi.as_view(), name="transfer-start"),
    path("ingest-runs/", ingest_apis.IngestRunListApi.as_view(), name="ingest-run-list"),
    path(
        "ingest-runs/<int:run_id>/",
        ingest_apis.IngestRunDetailApi.as_view(),
        name="ingest-run-detail",
    ),
    path(
        "ingest-runs/<int:run_id>/items/",
        ingest_apis.IngestItemListApi.as_view(),
        name="ingest-run-items",
    ),
    path(
        "ingest-runs/<int:run_id>/pause/",
        ingest_apis.IngestRunPauseApi.as_view(),
        name="ingest-run-pause",
    ),
    path(
        "ingest-runs/<int:run_id>/resume/",
        ingest_apis.IngestRunResumeApi.as_view(),
        name="ingest-run-resume",
    ),
    path(
        "ingest-runs/<int:run_id>/cancel/",
        ingest_apis.IngestRunCancelApi.as_view(),
        name="ingest-run-cancel",
    ),
    path(
        "ingest-runs/<int:run_id>/retry-failed/",
        ingest_apis.IngestRunRetryFailedApi.as_view(),
        name="ingest-run-retry-failed",
    ),
    path("csv-validations/", csv_apis.CsvValidationApi.as_view(), name="csv-validate"),
    path("pipelines/<slug:slug>/levels/", level_apis.LevelListApi.as_view(), name="levels"),
    path(
        "pipelines/<slug:slug>/levels/fetch/",
        level_apis.LevelFetchApi.as_view(),
        name="levels-fetch",
    ),
    path(
        "pipelines/<slug:slug>/path-metadata/",
        level_apis.PathMetadataApi.as_view(),
        name="path-metadata",
    ),
    path(
        "pipelines/<slug:slug>/processing-configurations/",
        config_apis.ProcessingConfigListApi.as_view(),
        name="processing-config-list",
    ),
    path(
        "pipelines/<slug:slug>/processing-configurations/<str:name>/",
        config_apis.ProcessingConfigDetailApi.as_view(),
        name="processing-config-detail",
    ),
]
