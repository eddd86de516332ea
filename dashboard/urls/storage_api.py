"""Storage read API, included at the root of /api/v1/ (namespace `api`)."""

from __future__ import annotations

from django.urls import path

from dashboard import storage_apis

urlpatterns = [
    path("pipelines/", storage_apis.PipelineListApi.as_view(), name="pipeline-list"),
    path("spaces/", storage_apis.SpaceListApi.as_view(), name="space-list"),
    path("locations/", storage_apis.LocationListApi.as_view(), name="location-list"),
    path("packages/", storage_apis.PackageListApi.as_view(), name="package-list"),
    path("packages/<uuid:uuid>/", storage_apis.PackageDetailApi.as_view(), name="package-detail"),
]
