"""The HTML pages' URLs, namespaced `dashboard:`; each area keeps its own URL list."""

from __future__ import annotations

from django.urls import include, path

from dashboard.views import api_docs, api_tokens, health, levels, metrics
from dashboard.views import csv_validation as csv_views
from dashboard.views import processing_configs as processing_config_views

app_name = "dashboard"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("alerts/", include("dashboard.urls.alerts")),
    path("storage/", include("dashboard.urls.storage")),
    path("wall/", include("dashboard.urls.wall")),
    path("transfers/start/", include("dashboard.urls.transfers")),
    path("ingest-runs/", include("dashboard.urls.ingest_runs")),
    # Beside the API (/api/v1/), not in it: pages for people, not versioned operations.
    path("api/docs/", api_docs.swagger_ui, name="api-docs"),
    path("api/redoc/", api_docs.redoc, name="api-redoc"),
    path("accounts/tokens/", api_tokens.api_tokens, name="api-tokens"),
    path("accounts/tokens/create/", api_tokens.api_token_create, name="api-token-create"),
    path(
        "accounts/tokens/<int:token_id>/revoke/",
        api_tokens.api_token_revoke,
        name="api-token-revoke",
    ),
    path("csv/validate/", csv_views.validate, name="csv-validate"),
    path(
        "processing-configurations/",
        processing_config_views.config_index,
        name="processing-config-index",
    ),
    path(
        "pipelines/<slug:slug>/processing-configurations/",
        include("dashboard.urls.processing_configs"),
    ),
    path("pipelines/<slug:slug>/levels/", levels.levels_page, name="levels"),
    path("pipelines/<slug:slug>/levels/fetch/", levels.levels_fetch, name="levels-fetch"),
    path("pipelines/<slug:slug>/levels/path/", levels.path_level_set, name="path-level-set"),
    path("", include("dashboard.urls.units")),
]
