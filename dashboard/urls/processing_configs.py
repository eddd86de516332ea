"""Processing configuration pages, under `pipelines/<slug>/processing-configurations/`."""

from __future__ import annotations

from django.urls import path

from dashboard.views import processing_configs as views

urlpatterns = [
    path("", views.config_list, name="processing-config-list"),
    path("compare/", views.config_compare, name="processing-config-compare"),
    path("<str:name>/", views.config_detail, name="processing-config"),
    path("<str:name>/xml/", views.config_xml, name="processing-config-xml"),
]
