"""The wall screen for the operations room, and the admin page for its links.

`/wall/<token>/` is where a kiosk starts: it needs no login, only a live wall link. It
swaps the token for a signed, HttpOnly, SameSite=Strict cookie scoped to `/wall/` and
redirects to `/wall/`, so the screen and its refreshes never carry the token (and no
access log sees it). `/wall/` shows the screen to a browser with that cookie, checked on
every refresh (a revoked link stops the screen at once), or to a logged-in user with a
role. The cookie opens this page and nothing else. Both render cached state and history
only.
"""

from __future__ import annotations

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required, permission_required
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from dashboard.lib import page_cache
from dashboard.lib.htmx import HtmxHttpRequest
from dashboard.lib.languages import language_choices, supported_language
from dashboard.lib.roles import user_has_role
from dashboard.models import WallLink
from dashboard.selectors.alerts import open_alerts_get
from dashboard.selectors.wall import wall_state
from dashboard.services import wall_links as wall_link_services

DEFAULT_REFRESH_SECONDS = 10
# The screen's cookie: signed (with this salt), HttpOnly, SameSite=Strict, sent to /wall/
# only. A kiosk runs for months; Chrome keeps a cookie 400 days at most.
WALL_COOKIE = "lookout_wall"
WALL_COOKIE_SALT = "dashboard.wall.cookie"
WALL_COOKIE_MAX_AGE = 400 * 24 * 3600
WALL_TEMPLATE = "dashboard/wall/wall.html"
DENIED_TEMPLATE = "dashboard/wall/denied.html"
DENIED = {
    wall_link_services.Access.UNKNOWN: (404, gettext_lazy("This wall link is not valid.")),
    wall_link_services.Access.REVOKED: (403, gettext_lazy("This wall link has been revoked.")),
}


def refresh_interval_ms() -> int:
    """LOOKOUT_WALL_REFRESH_SECONDS (default 10) in milliseconds; at least a quarter second."""
    seconds = float(getattr(settings, "LOOKOUT_WALL_REFRESH_SECONDS", DEFAULT_REFRESH_SECONDS))
    return max(250, round(seconds * 1000))


def _wall_path() -> str:
    return reverse("dashboard:wall")


def _set_wall_cookie(response: HttpResponse, link: WallLink) -> None:
    response.set_signed_cookie(
        WALL_COOKIE,
        wall_link_services.wall_cookie_value(link),
        salt=WALL_COOKIE_SALT,
        max_age=WALL_COOKIE_MAX_AGE,
        path=_wall_path(),
        secure=settings.SESSION_COOKIE_SECURE,
        httponly=True,
        samesite="Strict",
    )


def _kiosk_headers(response: HttpResponse) -> HttpResponse:
    # Keep the screen's addresses out of Referer headers and search indexes.
    response["Referrer-Policy"] = "no-referrer"
    response["X-Robots-Tag"] = "noindex, nofollow"
    return response


def _render_wall(request: HtmxHttpRequest, *, refresh_url: str) -> HttpResponse:
    interval_ms = refresh_interval_ms()
    # Links to the pages only for a signed-in user; a kiosk's cookie opens nothing else.
    linked = request.user.is_authenticated
    live = page_cache.cached_fragment(
        "wall",
        seconds=interval_ms / 1000,
        variant=f"{'linked' if linked else 'kiosk'}:{refresh_url}:{interval_ms}",
        render=lambda: _wall_live(refresh_url=refresh_url, interval_ms=interval_ms, linked=linked),
    )
    if request.htmx:
        return HttpResponse(live)
    context = {
        # The region was rendered by this view's own template, which escapes upstream data.
        "wall_live": mark_safe(live),
        # A refresh that hangs for longer than one interval counts as failed.
        "request_timeout_ms": max(1000, interval_ms),
    }
    return render(request, WALL_TEMPLATE, context)


def _wall_live(*, refresh_url: str, interval_ms: int, linked: bool) -> str:
    """The screen's live region, the same for every viewer of the variant."""
    state = wall_state()
    context = {
        "wall": state,
        "linked": linked,
        "refresh_url": refresh_url,
        "refresh_ms": interval_ms,
        "generated_label": timezone.localtime(state.generated_at).strftime("%H:%M"),
        "open_alerts": open_alerts_get(limit=1),
    }
    return render_to_string(f"{WALL_TEMPLATE}#wall-live", context)


def _denied(request: HtmxHttpRequest, access: wall_link_services.WallAccess) -> HttpResponse:
    status, message = DENIED[access.outcome]
    template = f"{DENIED_TEMPLATE}#wall-denied" if request.htmx else DENIED_TEMPLATE
    return render(
        request,
        template,
        {"message": message, "reason": access.outcome.value},
        status=status,
    )


def _speak_link_language(request: HttpRequest, link: WallLink | None) -> None:
    """A kiosk's wall is in its link's language, whatever its browser asks for."""
    language = supported_language(link.language) if link is not None else None
    if language is not None:
        translation.activate(language)
        request.LANGUAGE_CODE = language


@never_cache
@require_GET
def wall_screen(request: HtmxHttpRequest, token: str) -> HttpResponse:
    """Swap a live token for the screen's cookie, and send the browser to `/wall/`."""
    access = wall_link_services.wall_link_verify(token=token)
    _speak_link_language(request, access.link)
    if not access.granted or access.link is None:
        return _kiosk_headers(_denied(request, access))
    # A screen still polling its old token address reloads itself at /wall/.
    response: HttpResponse = (
        HttpResponseClientRedirect(_wall_path()) if request.htmx else redirect(_wall_path())
    )
    _set_wall_cookie(response, access.link)
    return _kiosk_headers(response)


@never_cache
@vary_on_headers("HX-Request", "Cookie")
@require_GET
def wall(request: HtmxHttpRequest) -> HttpResponse:
    """The screen, for a logged-in user with a role or a browser with a wall cookie; with
    HX-Request, just its live region (what the screen polls)."""
    user = request.user
    if user.is_authenticated and user_has_role(user):
        return _render_wall(request, refresh_url=request.path)
    cookie = request.get_signed_cookie(WALL_COOKIE, default=None, salt=WALL_COOKIE_SALT)
    if cookie is not None:
        access = wall_link_services.wall_link_verify_cookie(value=cookie)
        _speak_link_language(request, access.link)
        if access.granted:
            return _kiosk_headers(_render_wall(request, refresh_url=request.path))
        denied = _denied(request, access)
        denied.delete_cookie(WALL_COOKIE, path=_wall_path(), samesite="Strict")
        return _kiosk_headers(denied)
    if user.is_authenticated:
        raise PermissionDenied
    return redirect_to_login(request.get_full_path())


# --- managing links (admins) --------------------------------------------------


class WallLinkLanguageForm(forms.Form):
    language = forms.ChoiceField(
        label=gettext_lazy("Language"),
        choices=language_choices,
        # Left out, a new link takes the language its maker is using.
        required=False,
        help_text=gettext_lazy("The wall shows in this language, whatever the screen's browser."),
    )


class WallLinkForm(WallLinkLanguageForm):
    name = forms.CharField(
        label=gettext_lazy("Name"),
        max_length=wall_link_services.NAME_MAX_LENGTH,
        help_text=gettext_lazy("Where the screen hangs, for example “Operations room”."),
    )
    field_order = ["name", "language"]


def _links_page(request: HttpRequest, form: WallLinkForm, *, status: int = 200) -> HttpResponse:
    return render(
        request,
        "dashboard/wall/links.html",
        {"links": WallLink.objects.all(), "form": form, "languages": language_choices()},
        status=status,
    )


@never_cache
@require_GET
@login_required
@permission_required("dashboard.manage_wall_links", raise_exception=True)
def wall_links(request: HttpRequest) -> HttpResponse:
    # A new link takes the language the admin is using, unless they pick another.
    return _links_page(request, WallLinkForm(initial={"language": translation.get_language()}))


@never_cache
@require_POST
@login_required
@permission_required("dashboard.manage_wall_links", raise_exception=True)
def wall_link_create(request: HttpRequest) -> HttpResponse:
    form = WallLinkForm(request.POST)
    if not form.is_valid():
        return _links_page(request, form, status=400)
    try:
        created = wall_link_services.wall_link_create(
            name=form.cleaned_data["name"],
            language=form.cleaned_data["language"],
            actor=request.user,
        )
    except wall_link_services.WallLinkError as exc:
        form.add_error("name", str(exc))
        return _links_page(request, form, status=400)
    # Rendered, not redirected: the token must not travel through a session or a cookie
    # (and never_cache keeps the page out of every cache).
    url = request.build_absolute_uri(wall_link_services.wall_link_path(token=created.token))
    return render(request, "dashboard/wall/link_created.html", {"link": created.link, "url": url})


@never_cache
@require_http_methods(["GET", "POST"])
@login_required
@permission_required("dashboard.manage_wall_links", raise_exception=True)
def wall_link_revoke(request: HttpRequest, link_id: int) -> HttpResponse:
    """GET asks for confirmation; POST revokes."""
    link = WallLink.objects.filter(pk=link_id).first()
    if link is None:
        raise Http404("No such wall link")
    if request.method == "GET":
        return render(request, "dashboard/wall/link_revoke.html", {"link": link})
    try:
        wall_link_services.wall_link_revoke(link_id=link.pk, actor=request.user)
    except wall_link_services.WallLinkAlreadyRevoked as exc:
        messages.info(request, str(exc))
    else:
        messages.success(
            request,
            _("Revoked “%(name)s”: screens using it stop at their next refresh.")
            % {"name": link.name},
        )
    return redirect("dashboard:wall-links")


@never_cache
@require_POST
@login_required
@permission_required("dashboard.manage_wall_links", raise_exception=True)
def wall_link_language(request: HttpRequest, link_id: int) -> HttpResponse:
    """Change the language a link's screens show; they switch at their next refresh."""
    form = WallLinkLanguageForm(request.POST)
    if not form.is_valid() or not form.cleaned_data["language"]:
        messages.error(request, _("Choose one of the languages in the list."))
        return redirect("dashboard:wall-links")
    try:
        link = wall_link_services.wall_link_set_language(
            link_id=link_id, language=form.cleaned_data["language"], actor=request.user
        )
    except wall_link_services.WallLinkNotFound:
        raise Http404("No such wall link") from None
    messages.success(
        request,
        _("“%(name)s” now shows the wall in %(language)s.")
        % {"name": link.name, "language": dict(language_choices())[link.language]},
    )
    return redirect("dashboard:wall-links")
