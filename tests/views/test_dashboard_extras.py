"""The display filters the pages share (no Django request needed)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.templatetags.dashboard_extras import (
    age,
    ago,
    count_noun,
    duration,
    filesize,
    outcome_label,
    package_status_label,
    plural,
    protocol_label,
    purpose_label,
    service_label,
    status_label,
    task_duration,
)


def test_durations_delegate_to_the_vocabulary():
    assert duration(None) == "—"
    assert duration(7500) == "2 h 5 min"
    assert duration("45") == "45 s"


def test_a_task_duration_handles_under_one_second_and_missing():
    assert task_duration({"duration_seconds": 0, "duration_under_one_second": True}) == "< 1 s"
    assert task_duration({"duration_seconds": None, "duration_under_one_second": False}) == "—"
    assert task_duration({"uuid": "summary-only"}) == "—"
    assert task_duration({"duration_seconds": 75, "duration_under_one_second": False}) == "1 min"


def test_an_age_counts_from_now():
    assert age(timezone.now() - timedelta(seconds=90)) == "1 min"
    assert age(None) == "—"


def test_ago_reads_a_moment_or_seconds():
    assert ago(timezone.now() - timedelta(seconds=2)) == "just now"
    assert ago(timezone.now() - timedelta(minutes=3, seconds=5)) == "3 min ago"
    assert ago(45) == "45 s ago"
    assert ago(None) == "never"


def test_sizes_and_plurals_in_templates():
    assert filesize(1536) == "1.5 KiB"
    assert count_noun(1, "unit") == "1 unit"
    assert count_noun(3, "index,indices") == "3 indices"
    assert plural(1, "matches,match") == "matches"
    assert plural(2, "object") == "objects"
    assert purpose_label("AS") == "AIP storage"
    assert protocol_label("FS") == "Local filesystem"


@pytest.mark.parametrize(
    ("status", "text"),
    [("FAILED", "Failed"), ("USER_INPUT", "Awaiting decision"), ("COMPLETE", "Completed")],
)
def test_a_status_label_has_words_and_a_hidden_icon(status, text):
    label = status_label(status)

    assert f"</span> {text}</span>" in label
    assert 'aria-hidden="true"' in label


def test_an_unexpected_status_is_shown_escaped():
    assert "&lt;b&gt;" in status_label("<b>")
    assert "&lt;b&gt;" in package_status_label("<b>")
    assert "Refused" in outcome_label("refused")


def test_a_transfer_sent_to_backlog_is_labelled_so():
    assert "</span> Sent to backlog</span>" in status_label("COMPLETE", sent_to_backlog=True)
    assert "</span> Deletion requested</span>" in package_status_label("DEL_REQ")


def test_service_names_read_as_words():
    assert service_label("workflow:default") == "Workflow service (Default pipeline)"
    assert service_label("storage") == "Storage service"
