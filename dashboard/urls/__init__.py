"""The HTML pages' URLs, namespaced `dashboard:`; each area keeps its own URL list."""

from __future__ import annotations

from django.urls import include, path

from dashboard.views import health, metrics

app_name = "dashboard"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("metrics", metrics.metrics, name="metrics"),
    path("alerts/", include("dashboard.urls.alerts")),
    path("storage/", include("dashboard.urls.storage")),
    path("wall/", include("dashboard.urls.wall")),
    path("transfers/start/", include("dashboard.urls.transfers")),
    path("", include("dashboard.urls.units")),
]
