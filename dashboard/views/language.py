"""The language picker's form: Django's set_language, which also keeps a signed-in
user's choice for their next logins."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_POST
from django.views.i18n import set_language as django_set_language

from dashboard.lib.languages import remember_language, supported_language
from dashboard.services.user_language import user_language_save


@require_POST
def set_language(request: HttpRequest) -> HttpResponse:
    """Sets the language cookie and goes back to `next` (a safe local address only)."""
    language = supported_language(request.POST.get("language"))
    if language is None:
        # Django's view would keep any language it has a catalog for, not only Lookout's.
        target = request.POST.get("next", "")
        safe = url_has_allowed_host_and_scheme(
            target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
        )
        return HttpResponseRedirect(target if safe else "/")
    response = django_set_language(request)
    remember_language(response, language)  # as LANGUAGES spells it: "pt-BR" is "pt-br"
    if request.user.is_authenticated:
        user_language_save(user=request.user, language=language, session=request.session)
    return response
