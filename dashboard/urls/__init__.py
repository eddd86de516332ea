"""The HTML pages' URLs, namespaced `dashboard:`; each area keeps its own URL list."""

from __future__ import annotations

from django.urls import include, path

from dashboard.views import health

app_name = "dashboard"

urlpatterns = [
    path("healthz", health.healthz, name="healthz"),
    path("storage/", include("dashboard.urls.storage")),
    path("wall/", include("dashboard.urls.wall")),
    path("transfers/start/", include("dashboard.urls.transfers")),
    path("", include("dashboard.urls.units")),
]
