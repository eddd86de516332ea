"""The address a request came from, behind as many trusted reverse proxies as configured.

With LOOKOUT_TRUSTED_PROXY_COUNT = 0 (no proxy) it is REMOTE_ADDR, and X-Forwarded-For is
ignored, since anyone can send it. With N proxies in front, each appending the address it
saw, the client is the N-th entry from the right of X-Forwarded-For: what a client put
further left is not trusted. Login throttling (django-axes) counts failures by it.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def client_ip(request: HttpRequest) -> str:
    remote = str(request.META.get("REMOTE_ADDR") or "")
    count = int(getattr(settings, "LOOKOUT_TRUSTED_PROXY_COUNT", 0))
    if count <= 0:
        return remote
    forwarded = [
        part.strip()
        for part in str(request.META.get("HTTP_X_FORWARDED_FOR") or "").split(",")
        if part.strip()
    ]
    if not forwarded:
        return remote
    return forwarded[-count] if len(forwarded) >= count else forwarded[0]
