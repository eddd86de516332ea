"""The one vocabulary: every code has words, unknown codes fall back, formatters agree."""

from __future__ import annotations

import pytest

from dashboard.clients.storage import LocationPurpose, PackageStatus, PackageType, ReingestType
from dashboard.lib import vocabulary
from dashboard.lib.vocabulary import (
    ago,
    capacity_label,
    capacity_level,
    count_noun,
    duration,
    filesize,
    plural,
    usage_text,
)

KIB, MIB, GIB, TIB = 1024, 1024**2, 1024**3, 1024**4

# ----------------------------------------------------------------------------- maps

# The workflow service's unit statuses (specs: transfer and ingest status) plus Lookout's own.
WORKFLOW_STATUSES = ("PROCESSING", "USER_INPUT", "COMPLETE", "FAILED", "REJECTED")


def test_every_unit_status_has_words():
    assert set(WORKFLOW_STATUSES) | {"PENDING", "UNKNOWN"} == set(vocabulary.UNIT_STATUSES)
    assert vocabulary.unit_status("USER_INPUT").text == "Awaiting decision"
    assert vocabulary.unit_status("PENDING").text == "Pending (no jobs yet)"
    assert vocabulary.unit_status(None).text == "Unknown"


def test_a_completed_transfer_sent_to_backlog_says_so():
    assert vocabulary.unit_status("COMPLETE", sent_to_backlog=True).text == "Sent to backlog"
    assert vocabulary.unit_status("COMPLETE").text == "Completed"
    # Only a completed unit can have gone to the backlog.
    assert vocabulary.unit_status("FAILED", sent_to_backlog=True).text == "Failed"


def test_every_code_of_the_storage_client_has_words():
    known = {
        PackageStatus: vocabulary.PACKAGE_STATUSES,
        LocationPurpose: vocabulary.PURPOSES,
        PackageType: vocabulary.PACKAGE_TYPES,
        ReingestType: vocabulary.REINGEST_TYPES,
    }
    for enum, words in known.items():
        codes = {member.value for member in enum} - {"UNKNOWN"}
        assert codes == set(words), enum.__name__


@pytest.mark.parametrize(
    ("code", "text"),
    [
        ("UPLOADED", "Uploaded"),
        ("DEL_REQ", "Deletion requested"),
        ("RECOVER_REQ", "Recovery requested"),
        ("FINALIZE", "Finalizing"),
        ("FAIL", "Failed"),
    ],
)
def test_package_statuses_read_as_words(code, text):
    assert vocabulary.package_status(code).text == text


@pytest.mark.parametrize(
    "lookup",
    [
        lambda code: vocabulary.unit_status(code).text,
        lambda code: vocabulary.package_status(code).text,
        lambda code: vocabulary.outcome(code).text,
        vocabulary.purpose_label,
        vocabulary.package_type_label,
        vocabulary.protocol_label,
        vocabulary.reingest_type_label,
        vocabulary.unit_kind_label,
    ],
)
def test_an_unknown_code_is_shown_as_itself_never_marked_safe(lookup):
    text = lookup("<b>NEW</b>")

    assert text == "<b>NEW</b>"
    assert not hasattr(text, "__html__")  # a template escapes it like any other value


def test_an_unknown_status_gets_the_neutral_style():
    term = vocabulary.package_status("REPLICATING")

    assert (term.text, term.modifier, term.icon) == ("REPLICATING", "unknown", "?")


def test_empty_codes_have_words_too():
    assert vocabulary.purpose_label("") == "Unknown purpose"
    assert vocabulary.package_status("").text == "Unknown status"
    assert vocabulary.package_type_label("") == "—"


def test_purposes_protocols_and_types():
    assert vocabulary.purpose_label("SD") == "SWORD deposit"
    assert vocabulary.purpose_label("BL") == "Transfer backlog"
    assert vocabulary.protocol_label("FS") == "Local filesystem"
    assert vocabulary.package_type_label("transfer") == "Transfer"
    assert vocabulary.package_type_noun(1, "transfer") == "transfer"
    assert vocabulary.package_type_noun(2, "AIP") == "AIPs"
    assert vocabulary.package_type_noun(2, "XYZ") == "XYZ"


@pytest.mark.parametrize(
    ("code", "label"),
    [
        ("METADATA_ONLY", "Metadata only"),
        ("OBJECTS", "Objects"),
        ("FULL", "Full"),
        ("metadata", "Metadata only"),
        ("objects", "Objects"),
        ("full", "Full"),
    ],
)
def test_reingest_types_read_as_words(code, label):
    assert vocabulary.reingest_type_label(code) == label


def test_the_reingest_choices_send_the_services_words_and_say_what_each_type_does():
    choices = dict(vocabulary.reingest_type_choices())

    assert list(choices) == ["metadata", "objects", "full"]
    assert choices["metadata"].startswith("Metadata only (")


def test_a_decision_falls_back_to_the_microservice_then_a_dash():
    assert vocabulary.decision_label("Approve standard transfer", "x") == (
        "Approve standard transfer"
    )
    assert vocabulary.decision_label("", "Normalize") == "Normalize"
    assert vocabulary.decision_label("", "") == "—"


def test_service_names():
    assert vocabulary.service_label("storage") == "Storage service"
    assert vocabulary.service_label("workflow:east") == "Workflow service (east)"
    assert (
        vocabulary.service_label("workflow:east", {"east": "East pipeline"})
        == "Workflow service (East pipeline)"
    )


# ----------------------------------------------------------------------------- durations


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "—"),
        (-3, "< 1 s"),
        (0, "< 1 s"),
        (0.999, "< 1 s"),
        (1, "1 s"),
        (45, "45 s"),
        (59.9, "59 s"),
        (60, "1 min"),
        (185, "3 min"),
        (3599, "59 min"),
        (3600, "1 h"),
        (7500, "2 h 5 min"),
        (86399, "23 h 59 min"),
        (86400, "1 day"),
        (86400 + 4 * 3600, "1 day 4 h"),
        (3 * 86400, "3 days"),
        (6 * 86400 + 23 * 3600, "6 days 23 h"),
        (7 * 86400 + 5 * 3600, "7 days"),
        (40 * 86400, "40 days"),
    ],
)
def test_durations_at_their_boundaries(seconds, text):
    assert duration(seconds) == text


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (None, "never"),
        (0, "just now"),
        (4.9, "just now"),
        (5, "5 s ago"),
        (45, "45 s ago"),
        (180, "3 min ago"),
        (7500, "2 h 5 min ago"),
        (3 * 86400, "3 days ago"),
    ],
)
def test_ages_read_in_words_never_as_zero_minutes(seconds, text):
    assert ago(seconds) == text
    assert "0 min" not in ago(seconds)


# ----------------------------------------------------------------------------- sizes


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (None, "—"),
        (0, "0 bytes"),
        (1, "1 byte"),
        (1023, "1023 bytes"),
        (1024, "1.0 KiB"),
        (1536, "1.5 KiB"),
        (MIB - 1, "1024.0 KiB"),
        (MIB, "1.0 MiB"),
        (GIB - MIB, "1023.0 MiB"),
        (GIB, "1.0 GiB"),
        (int(2.5 * TIB), "2.5 TiB"),
        (3 * 1024 * TIB, "3.0 PiB"),
        (5000 * 1024 * TIB, "5000.0 PiB"),
    ],
)
def test_sizes_are_1024_based_with_binary_units(size, text):
    assert filesize(size) == text


# ----------------------------------------------------------------------------- capacity


@pytest.mark.parametrize(
    ("used", "limit", "level", "label"),
    [
        (0, None, "unlimited", "No limit set"),
        (5, 0, "unlimited", "No limit set"),
        (799, 1000, "ok", "OK"),
        (800, 1000, "warning", "Filling up"),
        (899, 1000, "warning", "Filling up"),
        (900, 1000, "critical", "Nearly full"),
        (1300, 1000, "critical", "Nearly full"),
    ],
)
def test_one_set_of_capacity_thresholds(used, limit, level, label):
    assert capacity_level(used, limit) == level
    assert capacity_label(level) == label


def test_a_usage_figure_never_rounds_up_past_a_threshold():
    assert usage_text(8999, 10000) == "8.8 KiB of 9.8 KiB (89.9 %)"
    assert capacity_level(8999, 10000) == "warning"
    assert usage_text(930 * GIB, 1000 * GIB) == "930.0 GiB of 1000.0 GiB (93.0 %)"
    assert usage_text(5 * GIB, None) == "5.0 GiB used"


# ----------------------------------------------------------------------------- plurals


def test_plurals():
    assert count_noun(1, "unit") == "1 unit"
    assert count_noun(2, "unit") == "2 units"
    assert count_noun(0, "unit") == "0 units"
    assert count_noun(2, "index", "indices") == "2 indices"
    assert count_noun(1, "index", "indices") == "1 index"
    assert f"{count_noun(1, 'unit')} {plural(1, 'matches', 'match')}" == "1 unit matches"
    assert f"{count_noun(2, 'unit')} {plural(2, 'matches', 'match')}" == "2 units match"


def test_an_audited_action_reads_as_words_and_an_unknown_one_as_its_code():
    assert vocabulary.audit_action("transfer_approve") == "Transfer approved"
    assert vocabulary.audit_action("ingest_run_retry_failed") == "Failed items retried"
    assert vocabulary.audit_action("some_new_action") == "Some new action"
