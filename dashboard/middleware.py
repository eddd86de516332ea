"""Per-session behaviour Django does not have: the signed-in user's language, and an idle
timeout beside the absolute lifetime.

The language: LocaleMiddleware picks the picker's cookie, else the browser's
Accept-Language. A signed-in user's saved choice (copied into the session at login) wins
over both, and is written to the cookie too, so the login page after a logout keeps it.

The timeout:

A logged-in session ends LOOKOUT_SESSION_IDLE_MINUTES after the user last loaded a page
or sent a form, and LOOKOUT_SESSION_MAX_HOURS after the login whatever happens
(SESSION_COOKIE_AGE says the same to the browser). htmx GETs (the live regions' polling)
do not count as activity, so a page left open does not keep its session alive forever.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from django.conf import settings
from django.contrib.auth import logout
from django.http import HttpRequest, HttpResponse
from django.utils import translation

from dashboard.lib.languages import SESSION_KEY, remember_language, supported_language

STARTED = "lookout_session_started"
SEEN = "lookout_session_seen"
# Activity is recorded to the minute: a page load writes the session at most once a
# minute instead of on every load (a database write per page view otherwise).
SEEN_RESOLUTION_SECONDS = 60


class SessionTimeoutMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and hasattr(request, "session"):
            self._check(request)
        return self.get_response(request)

    def _check(self, request: HttpRequest) -> None:
        session = request.session
        now = time.time()
        started = session.get(STARTED)
        seen = session.get(SEEN)
        if not isinstance(started, int | float) or not isinstance(seen, int | float):
            session[STARTED] = session[SEEN] = now
            return
        idle = settings.LOOKOUT_SESSION_IDLE_MINUTES * 60
        lifetime = settings.SESSION_COOKIE_AGE
        if now - seen > idle or now - started > lifetime:
            logout(request)  # the view then sees an anonymous user: login page, 403 in the API
            return
        polling = request.method == "GET" and request.headers.get("HX-Request") == "true"
        if not polling and now - seen >= SEEN_RESOLUTION_SECONDS:
            session[SEEN] = now


class UserLanguageMiddleware:
    """After authentication: the signed-in user's saved language speaks for the request."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        chosen = self._saved_language(request)
        if chosen is not None:
            translation.activate(chosen)
            request.LANGUAGE_CODE = chosen
        response = self.get_response(request)
        if chosen is not None and request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) != chosen:
            remember_language(response, chosen)
        return response

    @staticmethod
    def _saved_language(request: HttpRequest) -> str | None:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated or not hasattr(request, "session"):
            return None
        return supported_language(request.session.get(SESSION_KEY))
