"""The display filters the pages share (no Django request needed)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.templatetags.dashboard_extras import (
    age,
    duration,
    outcome_label,
    service_label,
    status_label,
    task_duration,
)


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "—"),
        (0, "< 1 s"),
        (0.4, "< 1 s"),
        (1, "1 s"),
        (59, "59 s"),
        (60, "1 min"),
        (125, "2 min 5 s"),
        (3600, "1 h"),
        (7500, "2 h 5 min"),
        (3 * 86400 + 3600, "3 d 1 h"),
    ],
)
def test_durations_read_as_short_words(seconds, text):
    assert duration(seconds) == text


def test_a_task_duration_handles_under_one_second_and_missing():
    assert task_duration({"duration_seconds": 0, "duration_under_one_second": True}) == "< 1 s"
    assert task_duration({"duration_seconds": None, "duration_under_one_second": False}) == "—"
    assert task_duration({"uuid": "summary-only"}) == "—"
    assert (
        task_duration({"duration_seconds": 75, "duration_under_one_second": False}) == "1 min 15 s"
    )


def test_an_age_counts_from_now():
    assert age(timezone.now() - timedelta(seconds=90)) == "1 min 30 s"
    assert age(None) == "—"


@pytest.mark.parametrize(
    ("status", "text"),
    [("FAILED", "Failed"), ("USER_INPUT", "Awaiting decision"), ("COMPLETE", "Complete")],
)
def test_a_status_label_has_words_and_a_hidden_icon(status, text):
    label = status_label(status)

    assert f"</span> {text}</span>" in label
    assert 'aria-hidden="true"' in label


def test_an_unexpected_status_is_shown_escaped():
    assert "&lt;b&gt;" in status_label("<b>")
    assert "Refused" in outcome_label("refused")


def test_service_names_read_as_words():
    assert service_label("workflow:default") == "Workflow service (default)"
    assert service_label("storage") == "Storage service"
