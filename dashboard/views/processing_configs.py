"""Processing configuration pages: a pipeline's names, one configuration's decisions in
words, a comparison of two, and the raw XML.

Nothing here calls the workflow service: a configuration missing from the cache, or
older than a few minutes, is fetched by a task, and the page polls while "Loading…".
"""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_http_methods
from django.views.decorators.vary import vary_on_headers

from dashboard import tasks
from dashboard.forms.processing_configs import CompareForm
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import PipelineConfig, pipeline_get, pipeline_list
from dashboard.selectors import processing_configs as config_selectors
from dashboard.views.storage import LISTING_LIVE_TRIGGER
from dashboard.views.units import not_found, role_required


def _stored(
    pipeline: PipelineConfig, name: str, *, refresh: bool = False
) -> tuple[config_selectors.StoredConfig | None, bool]:
    return tasks.processing_config_shown(pipeline.slug, name, refresh=refresh)


def _render(
    request: HtmxHttpRequest,
    template: str,
    partial: str,
    context: dict[str, Any],
    status: int = 200,
) -> HttpResponse:
    context = {
        "section": "processing-configs",
        "live_trigger": LISTING_LIVE_TRIGGER,
        "several_pipelines": len(pipeline_list()) > 1,
        **context,
    }
    name = f"{template}#{partial}" if request.htmx else template
    return render(request, name, context, status=status)


def _unknown_pipeline(request: HtmxHttpRequest) -> HttpResponse:
    return not_found(request, "Lookout has no pipeline by that name.")


@role_required
@require_GET
@vary_on_headers("HX-Request")
def config_list(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return _unknown_pipeline(request)
    names = tasks.processing_config_names_shown(pipeline)
    rows = [(name, *_stored(pipeline, name)) for name in names]
    return _render(
        request,
        "dashboard/processing_configs/list.html",
        "configs-live",
        {
            "pipeline": pipeline,
            "pipelines": pipeline_list(),
            "rows": rows,
            "waiting": any(waiting for _, _, waiting in rows),
            "live_url": request.get_full_path(),
            "compare_form": CompareForm(names=names),
        },
    )


@role_required
@require_http_methods(["GET", "POST"])
@vary_on_headers("HX-Request")
def config_detail(request: HtmxHttpRequest, slug: str, name: str) -> HttpResponse:
    """GET shows it; POST (the Refresh button) queues a new fetch. Both only read upstream."""
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return _unknown_pipeline(request)
    if name not in config_selectors.processing_config_names(pipeline=pipeline):
        return not_found(
            request,
            f"{name!r} is not one of {pipeline.name}'s processing configurations.",
        )
    stored, waiting = _stored(pipeline, name, refresh=request.method == "POST")
    return _render(
        request,
        "dashboard/processing_configs/detail.html",
        "config-live",
        {
            "pipeline": pipeline,
            "name": name,
            "config": stored,
            "waiting": waiting,
            "live_url": reverse("dashboard:processing-config", args=[slug, name]),
        },
    )


@role_required
@require_GET
def config_xml(request: HtmxHttpRequest, slug: str, name: str) -> HttpResponse:
    """The XML exactly as the workflow service gave it, as a file."""
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return _unknown_pipeline(request)
    stored = (
        config_selectors.processing_config_get(pipeline=slug, name=name)
        if name in config_selectors.processing_config_names(pipeline=pipeline)
        else None
    )
    if stored is None or stored.xml is None:
        return not_found(
            request,
            f"Lookout has no XML of {name!r} from {pipeline.name} yet; open the "
            "configuration's page to fetch it.",
        )
    response = HttpResponse(stored.xml, content_type="application/xml; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="{slug}-{name}.xml"'
    return response


@role_required
@require_GET
@vary_on_headers("HX-Request")
def config_compare(request: HtmxHttpRequest, slug: str) -> HttpResponse:
    pipeline = pipeline_get(slug)
    if pipeline is None:
        return _unknown_pipeline(request)
    form = CompareForm(
        request.GET, names=config_selectors.processing_config_names(pipeline=pipeline)
    )
    context: dict[str, Any] = {
        "pipeline": pipeline,
        "form": form,
        "live_url": request.get_full_path(),
    }
    if not form.is_valid():
        return _render(
            request, "dashboard/processing_configs/compare.html", "compare-live", context, 400
        )
    first, first_waiting = _stored(pipeline, form.cleaned_data["first"])
    second, second_waiting = _stored(pipeline, form.cleaned_data["second"])
    both = first is not None and second is not None and first.fetched and second.fetched
    rows = config_selectors.processing_config_compare(first, second) if both else []  # type: ignore[arg-type]
    context.update(
        first=first,
        second=second,
        first_name=form.cleaned_data["first"],
        second_name=form.cleaned_data["second"],
        waiting=first_waiting or second_waiting,
        rows=rows,
        differences=[row for row in rows if row.differs],
        same_count=sum(1 for row in rows if not row.differs),
    )
    return _render(request, "dashboard/processing_configs/compare.html", "compare-live", context)


@role_required
@require_GET
def config_index(request: HtmxHttpRequest) -> HttpResponse:
    """The main navigation's link: the first pipeline's configurations."""
    pipelines = pipeline_list()
    if not pipelines:
        return not_found(request, "No pipeline is configured.")
    return redirect("dashboard:processing-config-list", pipelines[0].slug)
