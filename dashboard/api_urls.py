from __future__ import annotations

from django.urls import include, path
from drf_spectacular.views import SpectacularAPIView

from dashboard import apis

app_name = "api"

urlpatterns = [
    path("units/", apis.UnitListApi.as_view(), name="unit-list"),
    path("units/<uuid:uuid>/", apis.UnitDetailApi.as_view(), name="unit-detail"),
    path("waiting/", apis.WaitingListApi.as_view(), name="waiting-list"),
    path("health/", apis.HealthApi.as_view(), name="health"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("", include("dashboard.urls.storage_api")),
]
