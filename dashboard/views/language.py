"""The language picker's form: Django's set_language, which also keeps a signed-in
user's choice for their next logins."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from dashboard.services.user_language import user_language_save


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Sets the language cookie and goes back to `next` (a safe local address only)."""
    response = django_set_language(request)
    if request.user.is_authenticated:
        user_language_save(
            user=request.user, language=request.POST.get("language", ""), session=request.session
        )
    return response
