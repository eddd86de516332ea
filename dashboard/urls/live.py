"""URLs of the live pages and of the actions taken from them (namespace `dashboard`)."""

from __future__ import annotations

from django.urls import path

from dashboard.views import live

overview_urls = [
    path("", live.home, name="home"),
]

unit_urls = [
    path("units/", live.unit_list, name="unit-list"),
    path("units/<uuid:uuid>/", live.unit_detail, name="unit-detail"),
    path("units/<uuid:uuid>/jobs/<uuid:job_uuid>/", live.job_detail, name="job-detail"),
    path("units/<uuid:uuid>/hide/confirm/", live.unit_hide_confirm, name="unit-hide-confirm"),
    path("units/<uuid:uuid>/hide/", live.unit_hide, name="unit-hide"),
]

waiting_urls = [
    path("waiting/", live.waiting_list, name="waiting-list"),
    path(
        "transfers/<uuid:uuid>/approve/confirm/",
        live.transfer_approve_confirm,
        name="transfer-approve-confirm",
    ),
    path("transfers/<uuid:uuid>/approve/", live.transfer_approve, name="transfer-approve"),
]

audit_urls = [
    path("audit/", live.audit_list, name="audit-list"),
]

urlpatterns = overview_urls + unit_urls + waiting_urls + audit_urls
