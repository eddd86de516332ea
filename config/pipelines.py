"""The pipelines (workflow services) Lookout watches.

The first comes from the LOOKOUT_WORKFLOW_* variables; more can be listed in a JSON
file named by LOOKOUT_PIPELINES_FILE. Keys are read from the environment or from a
file (`key_env` / `key_file` in the JSON), never stored in the database; so is the
optional dashboard account's password (`dashboard_password_env` / `_file`).
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
# The service reads processing configuration names as 1-16 word characters.
_CONFIG_NAME = re.compile(r"^\w{1,16}$")
DEFAULT_PROCESSING_CONFIGS = ("default", "automated")


def _url(entry: dict[str, Any], field: str, where: str, default: str = "") -> str:
    url = str(entry.get(field) or default).rstrip("/")
    if not url.startswith(("http://", "https://")):
        raise ImproperlyConfigured(f"{where}: {field} must be an http:// or https:// URL")
    return url


def _processing_configs(entry: dict[str, Any], where: str) -> list[str]:
    """The configuration names offered for the pipeline (the API cannot list them)."""
    raw = entry.get("processing_configs") or []
    if isinstance(raw, str):
        raw = [name.strip() for name in raw.split(",") if name.strip()]
    if not isinstance(raw, list) or not all(isinstance(name, str) for name in raw):
        raise ImproperlyConfigured(f"{where}: processing_configs must be a list of names")
    names = list(dict.fromkeys(raw)) or list(DEFAULT_PROCESSING_CONFIGS)
    for name in names:
        if not _CONFIG_NAME.match(name):
            raise ImproperlyConfigured(
                f"{where}: processing configuration name {name!r} must be 1-16 letters, "
                "digits or underscores"
            )
    return names


def _secret(entry: dict[str, Any], where: str, field: str) -> str:
    """`<field>_env` or `<field>_file`; a secret in clear in the file is refused."""
    if f"{field}_env" in entry:
        name = str(entry[f"{field}_env"])
        if not os.environ.get(name):
            raise ImproperlyConfigured(f"{where}: environment variable {name} is not set")
        return os.environ[name]
    if f"{field}_file" in entry:
        try:
            return Path(str(entry[f"{field}_file"])).read_text().strip()
        except OSError as exc:
            raise ImproperlyConfigured(f"{where}: {field}_file cannot be read: {exc}") from None
    if field in entry:
        raise ImproperlyConfigured(
            f"{where}: give {field}_env or {field}_file, not a {field.replace('_', ' ')} in clear"
        )
    return ""


def _pipeline_key(entry: dict[str, Any], where: str) -> str:
    return _secret(entry, where, "key")


def _dashboard_account(entry: dict[str, Any], where: str) -> tuple[str, str]:
    """The optional service account on the workflow service's own dashboard: both or none."""
    user = str(entry.get("dashboard_user") or "")
    password = _secret(entry, where, "dashboard_password")
    if bool(user) != bool(password):
        raise ImproperlyConfigured(
            f"{where}: the dashboard account needs both a user and a password (or neither)"
        )
    return user, password


def _validated(entry: dict[str, Any], where: str) -> dict[str, Any]:
    slug = str(entry.get("slug", ""))
    if not _SLUG.match(slug):
        raise ImproperlyConfigured(f"{where}: slug {slug!r} must be lowercase letters, digits, -")
    url = _url(entry, "url", where)
    # Where people answer the decisions the API cannot: the service's own web UI.
    ui_url = _url(entry, "ui_url", where, default=url)
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
        "user": str(entry.get("user", "")),
        "key": str(entry.get("key", "")),
        "time_zone": time_zone,
        "ui_url": ui_url,
        "processing_configs": _processing_configs(entry, where),
        "dashboard_user": str(entry.get("dashboard_user") or ""),
        "dashboard_password": str(entry.get("dashboard_password") or ""),
    }


def load_pipelines(*, first: dict[str, str], extra_file: str) -> list[dict[str, Any]]:
    first_user, first_password = (
        str(first.get("dashboard_user") or ""),
        str(first.get("dashboard_password") or ""),
    )
    if bool(first_user) != bool(first_password):
        raise ImproperlyConfigured(
            "LOOKOUT_WORKFLOW_DASHBOARD_USER and LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD "
            "(or _PASSWORD_FILE) must be set together"
        )
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
            pipeline = _validated({**entry, "key": "", "dashboard_password": ""}, where)
            pipeline["key"] = _pipeline_key(entry, where)
            pipeline["dashboard_user"], pipeline["dashboard_password"] = _dashboard_account(
                entry, where
            )
            pipelines.append(pipeline)
    slugs = [p["slug"] for p in pipelines]
    if len(set(slugs)) != len(slugs):
        raise ImproperlyConfigured("pipeline slugs must be unique")
    return pipelines


def simulator_pipeline_entries(workflow_urls: list[str], *, user: str) -> list[dict[str, Any]]:
    """Pipelines-file entries (no key) for the simulator's workflow services, pipeline 1
    first: slug `default` as the LOOKOUT_WORKFLOW_* pipeline of the demo, then
    `pipeline-2`, `pipeline-3`, ... Each service serves its own dashboard (ui_url)."""
    entries = []
    for number, url in enumerate(workflow_urls, start=1):
        entries.append(
            {
                "slug": "default" if number == 1 else f"pipeline-{number}",
                "name": "Default pipeline" if number == 1 else f"Pipeline {number}",
                "url": url,
                "ui_url": url,
                "user": user,
                "time_zone": "UTC",
                "processing_configs": list(DEFAULT_PROCESSING_CONFIGS),
            }
        )
    return entries


def simulator_pipelines(workflow_urls: list[str], *, user: str, key: str) -> list[dict[str, Any]]:
    """LOOKOUT_PIPELINES (as the settings hold it) for the simulator's workflow services."""
    return [
        {**_validated(entry, f"simulated pipeline {entry['url']}"), "key": key}
        for entry in simulator_pipeline_entries(workflow_urls, user=user)
    ]
