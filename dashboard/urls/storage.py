"""URLs of the storage pages and package operations, under `storage/` (namespace `dashboard`).

Each operation answers GET with its confirmation form and POST with the action.
"""

from __future__ import annotations

from django.urls import path

from dashboard.views import storage

overview_urls = [
    path("", storage.overview, name="storage-overview"),
    path("locations/<uuid:uuid>/", storage.location_browse, name="storage-location"),
]

package_urls = [
    path("packages/", storage.package_list, name="storage-package-list"),
    path("packages/<uuid:uuid>/", storage.package_detail, name="storage-package-detail"),
    path("packages/<uuid:uuid>/fixity/", storage.package_fixity, name="storage-package-fixity"),
    path(
        "packages/<uuid:uuid>/download/", storage.package_download, name="storage-package-download"
    ),
    path("packages/<uuid:uuid>/delete/", storage.package_delete, name="storage-package-delete"),
    path("packages/<uuid:uuid>/recover/", storage.package_recover, name="storage-package-recover"),
    path(
        "packages/<uuid:uuid>/reingest/", storage.package_reingest, name="storage-package-reingest"
    ),
    path("packages/<uuid:uuid>/move/", storage.package_move, name="storage-package-move"),
]

urlpatterns = overview_urls + package_urls
