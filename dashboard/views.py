from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache

from dashboard import selectors
from dashboard.health import health_checks


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "dashboard/home.html",
        {"services": selectors.service_health_list(), "waiting": selectors.waiting_list()[:10]},
    )


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    checks = health_checks()
    ok = all(c.ok for c in checks)
    return JsonResponse(
        {"ok": ok, "checks": {c.name: {"ok": c.ok, "reason": c.reason} for c in checks}},
        status=200 if ok else 503,
    )
