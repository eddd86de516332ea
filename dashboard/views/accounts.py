"""The page a locked-out login gets (django-axes' AXES_LOCKOUT_CALLABLE)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def locked_out(
    request: HttpRequest,
    original_response: HttpResponse | None = None,
    credentials: dict[str, Any] | None = None,
) -> HttpResponse:
    username = str((credentials or {}).get("username") or request.POST.get("username") or "")
    minutes = int(settings.AXES_COOLOFF_TIME.total_seconds() // 60)
    return render(
        request,
        "registration/locked_out.html",
        {"username": username, "minutes": minutes},
        status=429,
    )
