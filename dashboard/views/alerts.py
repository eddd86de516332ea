"""The alerts pages: the list and one alert (viewers and up), silencing (operators, or a
signed link from a message), and the settings of rules and channels (admins).

Every change goes through `dashboard.services.alerts`, which writes its audit row.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers

from dashboard.forms.alerts import (
    DIGEST_HOUR_CHOICES,
    AlertFilterForm,
    ChannelForm,
    ChannelLanguageForm,
    DigestForm,
    RuleForm,
    SilenceForm,
    language_choices,
)
from dashboard.lib import vocabulary
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AlertChannel, AlertKind
from dashboard.selectors import alerts as alert_selectors
from dashboard.services import alerts as alert_services
from dashboard.views.units import _render_live, forbidden, not_found, role_required

ALERTS_PER_PAGE = 50
MANAGE = "dashboard.manage_alerts"
SILENCE = "dashboard.silence_alerts"


@role_required
@require_GET
@vary_on_headers("HX-Request")
def alert_list(request: HtmxHttpRequest) -> HttpResponse:
    form = AlertFilterForm(request.GET or None)
    filters = form.filters()
    alerts = alert_selectors.alert_list(
        state=filters.get("state", ""),
        kind=filters.get("kind", ""),
        pipeline=filters.get("pipeline", ""),
        baseline=filters.get("baseline", ""),
    )
    page = Paginator(alerts, ALERTS_PER_PAGE).get_page(request.GET.get("page"))
    return _render_live(
        request,
        "dashboard/alerts/alert_list.html",
        "alerts-live",
        {
            "section": "alerts",
            "form": form,
            "filters": filters,
            "filter_query": urlencode(filters),
            "page": page,
        },
    )


@role_required
@require_GET
def alert_detail(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    detail = alert_selectors.alert_detail_get(alert_id=alert_id)
    if detail is None:
        return not_found(request, _("There is no such alert."))
    return render(
        request,
        "dashboard/alerts/alert_detail.html",
        {
            "section": "alerts",
            "detail": detail,
            "alert": detail.alert,
            "silence_form": SilenceForm(),
            "may_silence": request.user.has_perm(SILENCE),
        },
    )


@role_required
@require_POST
def alert_silence(request: HtmxHttpRequest, alert_id: int) -> HttpResponse:
    if not request.user.has_perm(SILENCE):
        return forbidden(request, _("Silencing alerts needs the operator or admin role."))
    form = SilenceForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose how long to silence the alert for."))
        return redirect("dashboard:alert-detail", alert_id=alert_id)
    try:
        alert = alert_services.alert_silence(
            alert_id=alert_id, hours=form.cleaned_data["hours"], actor=request.user
        )
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
        return redirect("dashboard:alert-list")
    if alert.silenced_until:
        messages.success(
            request,
            _("Silenced until %(moment)s.") % {"moment": vocabulary.moment(alert.silenced_until)},
        )
    else:
        messages.success(request, _("The silence is lifted."))
    return redirect("dashboard:alert-detail", alert_id=alert_id)


@never_cache
@require_http_methods(["GET", "POST"])
def alert_silence_link(request: HttpRequest, token: str) -> HttpResponse:
    """From a link in a message: the signed token stands for the login, for this one
    alert. GET asks for confirmation (mail scanners follow links); POST silences."""
    found = alert_services.silence_token_read(token)
    detail = alert_selectors.alert_detail_get(alert_id=found[0]) if found else None
    if found is None or detail is None:
        return render(
            request,
            "dashboard/alerts/silence_link.html",
            {"invalid": True},
            status=404,
        )
    alert_id, channel_id = found
    form = SilenceForm(request.POST or None)
    done = None
    if request.method == "POST" and form.is_valid():
        done = alert_services.alert_silence(
            alert_id=alert_id,
            hours=form.cleaned_data["hours"],
            actor_name=f"link from channel {channel_id}",
        )
    return render(
        request,
        "dashboard/alerts/silence_link.html",
        {"alert": done or detail.alert, "form": form, "done": done},
        status=400 if request.method == "POST" and not form.is_valid() else 200,
    )


# --- settings (admins) ------------------------------------------------------------


def _settings_page(request: HttpRequest, status: int = 200, **extra: Any) -> HttpResponse:
    alert_services.alert_rules_ensure_defaults()
    context = {
        "section": "alert-settings",
        "settings": alert_selectors.alert_settings_get(),
        "channel_form": ChannelForm(),
        "kinds": AlertKind.choices,
        "pipelines": pipeline_list(),
        "digest_hours": DIGEST_HOUR_CHOICES,
        "languages": language_choices(),
        "time_zone": settings.TIME_ZONE,
        **extra,
    }
    return render(request, "dashboard/alerts/settings.html", context, status=status)


def _may_manage(request: HttpRequest) -> HttpResponse | None:
    if not request.user.has_perm(MANAGE):
        return forbidden(request, _("Alert rules and channels are managed by admins."))
    return None


@never_cache
@role_required
@require_GET
def alert_settings(request: HtmxHttpRequest) -> HttpResponse:
    return _may_manage(request) or _settings_page(request)


@role_required
@require_POST
def alert_rule_update(request: HtmxHttpRequest, rule_id: int) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    form = RuleForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("A threshold is a whole number."))
        return redirect("dashboard:alert-settings")
    try:
        rule = alert_services.alert_rule_update(
            rule_id=rule_id,
            enabled=form.cleaned_data["enabled"],
            threshold=form.cleaned_data["threshold"],
            actor=request.user,
        )
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Saved: %(rule)s.") % {"rule": rule})
    return redirect("dashboard:alert-settings")


@role_required
@require_POST
def alert_rule_add(request: HtmxHttpRequest) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    form = RuleForm(request.POST)
    kind = request.POST.get("kind", "")
    pipeline = request.POST.get("pipeline", "")
    if not form.is_valid():
        messages.error(request, _("A threshold is a whole number."))
        return redirect("dashboard:alert-settings")
    try:
        rule = alert_services.alert_rule_add(
            kind=kind,
            pipeline=pipeline,
            threshold=form.cleaned_data["threshold"],
            actor=request.user,
        )
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(request, _("Added: %(rule)s.") % {"rule": rule})
    return redirect("dashboard:alert-settings")


@never_cache
@role_required
@require_POST
def alert_channel_add(request: HtmxHttpRequest) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    form = ChannelForm(request.POST)
    if not form.is_valid():
        return _settings_page(request, status=400, channel_form=form)
    try:
        added = alert_services.alert_channel_add(
            kind=form.cleaned_data["kind"],
            target=form.cleaned_data["target"],
            language=form.cleaned_data["language"] or None,
            actor=request.user,
        )
    except alert_services.AlertError as exc:
        form.add_error("target", str(exc))
        return _settings_page(request, status=400, channel_form=form)
    # Rendered, not redirected: the signing secret must not travel through the session.
    return _settings_page(request, added=added)


@role_required
@require_http_methods(["GET", "POST"])
def alert_channel_remove(request: HtmxHttpRequest, channel_id: int) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    channel = AlertChannel.objects.filter(pk=channel_id).first()
    if channel is None:
        return not_found(request, _("There is no such channel."))
    if request.method == "GET":
        return render(
            request,
            "dashboard/alerts/channel_remove.html",
            {"section": "alert-settings", "channel": channel},
        )
    alert_services.alert_channel_remove(channel_id=channel_id, actor=request.user)
    messages.success(request, _("Removed %(channel)s.") % {"channel": channel})
    return redirect("dashboard:alert-settings")


@role_required
@require_POST
def alert_channel_test(request: HtmxHttpRequest, channel_id: int) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    try:
        outcome = alert_services.alert_channel_test(channel_id=channel_id, actor=request.user)
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
    else:
        if outcome.delivered:
            messages.success(request, _("The test message was delivered."))
        else:
            messages.error(
                request,
                _("The test message was not delivered: %(error)s") % {"error": outcome.error},
            )
    return redirect(reverse("dashboard:alert-settings") + "#channels")


@role_required
@require_POST
def alert_channel_digest(request: HtmxHttpRequest, channel_id: int) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    form = DigestForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("A digest hour is a whole hour from 0 to 23, or off."))
        return redirect(reverse("dashboard:alert-settings") + "#channels")
    hour = form.cleaned_data["hour"]
    try:
        channel = alert_services.alert_channel_digest_set(
            channel_id=channel_id, hour=hour, actor=request.user
        )
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
    else:
        if hour is None:
            messages.success(request, _("No daily digest to %(channel)s.") % {"channel": channel})
        else:
            messages.success(
                request,
                _("A daily digest goes to %(channel)s at %(hour)s.")
                % {"channel": channel, "hour": f"{hour:02d}:00"},
            )
    return redirect(reverse("dashboard:alert-settings") + "#channels")


@role_required
@require_POST
def alert_channel_language(request: HtmxHttpRequest, channel_id: int) -> HttpResponse:
    if denied := _may_manage(request):
        return denied
    form = ChannelLanguageForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Choose one of the languages offered."))
        return redirect(reverse("dashboard:alert-settings") + "#channels")
    try:
        channel = alert_services.alert_channel_language_set(
            channel_id=channel_id, language=form.cleaned_data["language"], actor=request.user
        )
    except alert_services.AlertError as exc:
        messages.error(request, str(exc))
    else:
        messages.success(
            request,
            _("Messages to %(channel)s are written in %(language)s.")
            % {
                "channel": channel,
                "language": dict(language_choices())[channel.language],
            },
        )
    return redirect(reverse("dashboard:alert-settings") + "#channels")
