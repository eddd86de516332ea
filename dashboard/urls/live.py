from __future__ import annotations

from django.urls import path

from dashboard.views import live

urlpatterns = [
    path("", live.home, name="home"),
]
