from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache

from dashboard.lib.roles import user_has_role
from dashboard.selectors.health import health_checks
from dashboard.services.directory_health import ldap_directory_check


@never_cache
def healthz(request: HttpRequest) -> JsonResponse:
    """200 when the database, the cache, every poller and the LDAP directory (when used)
    are fine; 503 with reasons if not."""
    # Load balancers call this without a login; only people with a role see error texts.
    details = user_has_role(request.user)
    checks = health_checks(details=details)
    if settings.LOOKOUT_LDAP_ENABLED:
        checks.append(ldap_directory_check(details=details))
    ok = all(c.ok for c in checks)
    return JsonResponse(
        {"ok": ok, "checks": {c.name: {"ok": c.ok, "reason": c.reason} for c in checks}},
        status=200 if ok else 503,
    )
