"""URLs of the unit pages and of the actions taken from them (namespace `dashboard`)."""

from __future__ import annotations

from django.urls import path

from dashboard.views import analytics, bulk_hide, metadata_files, search, units

overview_urls = [
    path("", units.home, name="home"),
]

unit_urls = [
    path("units/", units.unit_list, name="unit-list"),
    path("units/hide/confirm/", bulk_hide.units_hide_confirm, name="units-hide-confirm"),
    path("units/hide/", bulk_hide.units_hide, name="units-hide"),
    path("units/hide/<int:entry_id>/undo/", bulk_hide.units_hide_undo, name="units-hide-undo"),
    path("units/<uuid:uuid>/", units.unit_detail, name="unit-detail"),
    path("units/<uuid:uuid>/jobs/<uuid:job_uuid>/", units.job_detail, name="job-detail"),
    path("units/<uuid:uuid>/hide/confirm/", units.unit_hide_confirm, name="unit-hide-confirm"),
    path("units/<uuid:uuid>/hide/", units.unit_hide, name="unit-hide"),
    path(
        "units/<uuid:uuid>/reingest/confirm/",
        units.reingest_start_confirm,
        name="reingest-start-confirm",
    ),
    path("units/<uuid:uuid>/reingest/", units.reingest_start, name="reingest-start"),
    path("units/<uuid:uuid>/metadata-files/", metadata_files.browse, name="metadata-files"),
    path(
        "units/<uuid:uuid>/metadata-files/confirm/",
        metadata_files.confirm,
        name="metadata-files-confirm",
    ),
    path("units/<uuid:uuid>/metadata-files/add/", metadata_files.add, name="metadata-files-add"),
    path(
        "units/<uuid:uuid>/reingest/approve/confirm/",
        units.reingest_approve_confirm,
        name="reingest-approve-confirm",
    ),
    path("units/<uuid:uuid>/reingest/approve/", units.reingest_approve, name="reingest-approve"),
]

waiting_urls = [
    path("waiting/", units.waiting_list, name="waiting-list"),
    path(
        "transfers/<uuid:uuid>/approve/confirm/",
        units.transfer_approve_confirm,
        name="transfer-approve-confirm",
    ),
    path("transfers/<uuid:uuid>/approve/", units.transfer_approve, name="transfer-approve"),
    path(
        "units/<uuid:uuid>/decision/confirm/",
        units.decision_answer_confirm,
        name="decision-answer-confirm",
    ),
    path("units/<uuid:uuid>/decision/", units.decision_answer, name="decision-answer"),
]

analytics_urls = [
    path("analytics/", analytics.analytics_page, name="analytics"),
]

audit_urls = [
    path("audit/", units.audit_list, name="audit-list"),
]

search_urls = [
    path("search/", search.search, name="search"),
]

urlpatterns = overview_urls + unit_urls + waiting_urls + analytics_urls + audit_urls + search_urls
