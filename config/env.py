"""Strict readers for settings that come from the environment.

A bad value stops start-up with an `ImproperlyConfigured` that names the variable,
instead of surfacing later as a confusing error deep inside a request. A variable set to
an empty value counts as unset, so a copied `.env.example` with blanks keeps every
default (an empty SECURE_SSL_REDIRECT must not quietly turn the redirect off).
"""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import urlsplit

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def _raw(name: str) -> str | None:
    """The variable's value, or None when it is unset or blank."""
    raw = os.environ.get(name)
    if raw is None or raw.strip() == "":
        return None
    return raw


def env_str(name: str, default: str = "") -> str:
    raw = _raw(name)
    return default if raw is None else raw.strip()


def env_bool(name: str, default: bool = False) -> bool:
    raw = _raw(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    raw = _raw(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a whole number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    raw = _raw(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = _raw(name)
    if raw is None:
        return list(default)
    return [item.strip() for item in raw.split(",") if item.strip()]


def _is_http_url(value: str) -> bool:
    try:
        parts = urlsplit(value)
        return parts.scheme in ("http", "https") and bool(parts.hostname) and parts.port != 0
    except ValueError:  # a malformed IPv6 host, or a port that is not a number
        return False


def env_url(name: str, default: str) -> str:
    value = env_str(name, default)
    if not _is_http_url(value):
        raise ImproperlyConfigured(f"{name} must be an http:// or https:// URL, not {value!r}")
    return value.rstrip("/")


def url_origin(url: str) -> str:
    """scheme://host[:port] of an http(s) URL, as a Content-Security-Policy source."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def env_secret(name: str, default: str = "") -> str:
    """Read NAME, or the contents of the file named by NAME_FILE (for Docker secrets)."""
    file_name = _raw(f"{name}_FILE")
    if file_name is not None:
        try:
            return Path(file_name.strip()).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{name}_FILE cannot be read: {exc}") from None
    return env_str(name, default)
