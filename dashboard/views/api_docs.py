"""The API's reading pages: Swagger UI and Redoc over `/api/v1/schema/`.

Both are served from this server (the drf-spectacular-sidecar package's static files),
never from a CDN, and run under the site's Content-Security-Policy without
'unsafe-eval' or 'unsafe-inline': no inline script or style, one static script
(`dashboard/js/api-docs.js`) starts either page. Redoc's styling library writes <style>
elements; they carry this response's nonce, so only Redoc's page allows that nonce.
"""

from __future__ import annotations

from collections.abc import Callable

from csp.constants import NONCE
from csp.decorators import csp_update
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from dashboard.views.units import role_required

View = Callable[..., HttpResponseBase]
# What Redoc's page adds to the site's policy:
# - its styled components' <style> elements carry this response's nonce;
# - one stylesheet (its scroll bars') is written as the bundle loads, before Redoc can
#   give it the nonce: that exact text is allowed by its hash (and the empty element it
#   starts as). A new sidecar release may change it: tests/browser/test_api_docs.py
#   then reports the violation and its new hash;
# - its search index runs in a worker it makes from a blob.
REDOC_SCROLLBAR_CSS = "'sha256-QMIg+bpjm3JdElJ388KYke01izlUW0UoNOeKjpMxdgc='"
EMPTY_STYLE = "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
REDOC_POLICY = {
    "style-src": [NONCE, REDOC_SCROLLBAR_CSS, EMPTY_STYLE],
    "worker-src": ["blob:"],
}


def _redoc_policy(view: View) -> View:
    # Enforced and report-only alike: LOOKOUT_CSP_REPORT_ONLY picks which one is sent.
    return csp_update(REDOC_POLICY)(csp_update(REDOC_POLICY, REPORT_ONLY=True)(view))


def _context(request: HttpRequest) -> dict[str, str]:
    return {
        "schema_url": reverse("api:schema"),
        "swagger_url": reverse("dashboard:api-docs"),
        "redoc_url": reverse("dashboard:api-redoc"),
    }


@require_GET
@role_required
def swagger_ui(request: HttpRequest) -> HttpResponse:
    """Every operation, with "Try it out" over the reader's own login."""
    return render(request, "dashboard/api/swagger_ui.html", _context(request))


@require_GET
@role_required
@_redoc_policy
def redoc(request: HttpRequest) -> HttpResponse:
    """The same schema as one long reference page."""
    return render(request, "dashboard/api/redoc.html", _context(request))
