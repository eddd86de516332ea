"""URLs of the start-transfer wizard, under `transfers/start/` (namespace `dashboard`)."""

from __future__ import annotations

from django.urls import path

from dashboard.views import transfers

urlpatterns = [
    path("", transfers.start, name="transfer-start"),
    path("browse/", transfers.browse, name="transfer-start-browse"),
    path("details/", transfers.details, name="transfer-start-details"),
    path("submit/", transfers.submit, name="transfer-start-submit"),
]
