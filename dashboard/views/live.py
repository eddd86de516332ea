from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from dashboard import selectors


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "dashboard/home.html",
        {"services": selectors.service_health_list(), "waiting": selectors.waiting_list()[:10]},
    )
