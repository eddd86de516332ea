"""Vocabulary of the workflow dashboard source (a pipeline's service account): its
freshness key and how a refused sign-in is recorded. No Django."""

from __future__ import annotations

PREFIX = "dashboard:"
# A refused sign-in's recorded error starts with this; pages, /healthz and alerts read it.
REFUSED = "service account refused"


def dashboard_service(slug: str) -> str:
    """The freshness key of a pipeline's dashboard status lists."""
    return f"{PREFIX}{slug}"


def refused_error(pipeline_name: str) -> str:
    return f"{REFUSED} for {pipeline_name}"


def is_refusal(error: str) -> bool:
    return error.startswith(REFUSED)
