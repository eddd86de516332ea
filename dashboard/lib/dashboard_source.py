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


# The lists' interval. They cost the service CPU per unit x job, so Lookout waits at
# least this many times their last answer time...
ANSWER_TIME_FACTOR = 10
# ...and costs at most this share of one open tab of the service's own dashboard, which
# reads the transfer list again this long after each answer. Lookout reads two lists of
# about that size (transfers and SIPs) where the tab reads one.
TAB_PAUSE_SECONDS = 10
TAB_SHARE = 0.4


def list_interval_seconds(*, answered_in: float, minimum: float) -> float:
    """Seconds until the status lists are read again, after both answered in
    `answered_in` seconds: never under `minimum`, 10 x the answer time, nor so often
    that Lookout's reads outweigh 40 % of what one browser tab of the dashboard reads."""
    per_list = answered_in / 2
    tab_budget = 2 * (per_list + TAB_PAUSE_SECONDS) / TAB_SHARE
    return max(float(minimum), ANSWER_TIME_FACTOR * answered_in, tab_budget)
