"""`/search/?q=`: units and packages by name or UUID, from the header's search box."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from dashboard.forms.search import SearchForm
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.selectors import links
from dashboard.views.units import role_required


@role_required
@require_GET
def search(request: HtmxHttpRequest) -> HttpResponse:
    form = SearchForm(request.GET or None)
    q = form.cleaned_data["q"] if form.is_valid() else ""
    return render(
        request,
        "dashboard/search.html",
        {
            "section": "search",
            "form": form,
            "results": links.search(q=q),
            "units_url": reverse("dashboard:unit-list"),
        },
        status=200 if form.is_valid() or not form.is_bound else 400,
    )
