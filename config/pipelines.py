"""The pipelines (workflow services) Lookout watches.

The first comes from the LOOKOUT_WORKFLOW_* variables; more can be listed in a JSON
file named by LOOKOUT_PIPELINES_FILE. Keys are read from the environment or from a
file (`key_env` / `key_file` in the JSON), never stored in the database.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from django.core.exceptions import ImproperlyConfigured

_SLUG = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def _pipeline_key(entry: dict[str, Any], where: str) -> str:
    if "key_env" in entry:
        name = str(entry["key_env"])
        if not os.environ.get(name):
            raise ImproperlyConfigured(f"{where}: environment variable {name} is not set")
        return os.environ[name]
    if "key_file" in entry:
        try:
            return Path(str(entry["key_file"])).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{where}: key_file cannot be read: {exc}") from None
    if "key" in entry:
        raise ImproperlyConfigured(f"{where}: give key_env or key_file, not a key in clear")
    return ""


def _validated(entry: dict[str, Any], where: str) -> dict[str, str]:
    slug = str(entry.get("slug", ""))
    if not _SLUG.match(slug):
        raise ImproperlyConfigured(f"{where}: slug {slug!r} must be lowercase letters, digits, -")
    url = str(entry.get("url", "")).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ImproperlyConfigured(f"{where}: url must be an http:// or https:// URL")
    # The service's own dashboard, for links to a unit's page there (default: `url`).
    ui_url = str(entry.get("ui_url") or url).rstrip("/")
    if not ui_url.startswith(("http://", "https://")):
        raise ImproperlyConfigured(f"{where}: ui_url must be an http:// or https:// URL")
    # The workflow service sends naive task times in its server's local time.
    time_zone = str(entry.get("time_zone") or "UTC")
    try:
        ZoneInfo(time_zone)
    except (ZoneInfoNotFoundError, ValueError):
        raise ImproperlyConfigured(
            f"{where}: time_zone {time_zone!r} is not a known time zone (e.g. UTC, Europe/Paris)"
        ) from None
    return {
        "slug": slug,
        "name": str(entry.get("name") or slug),
        "url": url,
        "ui_url": ui_url,
        "user": str(entry.get("user", "")),
        "key": str(entry.get("key", "")),
        "time_zone": time_zone,
    }


def load_pipelines(*, first: dict[str, str], extra_file: str) -> list[dict[str, str]]:
    pipelines = [_validated(first, "LOOKOUT_WORKFLOW_*")]
    if extra_file:
        try:
            entries = json.loads(Path(extra_file).read_text())
        except (OSError, ValueError) as exc:
            raise ImproperlyConfigured(f"LOOKOUT_PIPELINES_FILE cannot be read: {exc}") from None
        if not isinstance(entries, list):
            raise ImproperlyConfigured("LOOKOUT_PIPELINES_FILE must hold a JSON list")
        for index, entry in enumerate(entries):
            where = f"LOOKOUT_PIPELINES_FILE entry {index}"
            if not isinstance(entry, dict):
                raise ImproperlyConfigured(f"{where} must be an object")
            pipeline = _validated({**entry, "key": ""}, where)
            pipeline["key"] = _pipeline_key(entry, where)
            pipelines.append(pipeline)
    slugs = [p["slug"] for p in pipelines]
    if len(set(slugs)) != len(slugs):
        raise ImproperlyConfigured("pipeline slugs must be unique")
    return pipelines
