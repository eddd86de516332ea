"""The HTML pages' URLs, namespaced `dashboard:`; each area keeps its own URL list."""

from __future__ import annotations

from django.urls import include, path

from dashboard.views import csv_validation as csv_views
from dashboard.views import health, levels, metrics
from dashboard.views import processing_configs as processing_config_views

app_name = "dashboard"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("alerts/", include("dashboard.urls.alerts")),
    path("storage/", include("dashboard.urls.storage")),
    path("wall/", include("dashboard.urls.wall")),
    path("transfers/start/", include("dashboard.urls.transfers")),
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
