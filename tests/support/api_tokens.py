"""Personal API tokens for tests, made the way the tokens page makes them."""

from __future__ import annotations

from django.contrib.auth.models import User

from dashboard.services import api_tokens
from dashboard.services.actions import idempotency_key_new


def api_token_for(user: User, name: str = "test script") -> str:
    """A live token of `user`: the value a script would send as `Bearer <token>`."""
    return api_tokens.api_token_create(
        user=user, name=name, idempotency_key=idempotency_key_new()
    ).secret
