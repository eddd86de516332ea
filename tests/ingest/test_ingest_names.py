"""Which children are items, their names, the names the service refuses, accession
patterns and time windows (dashboard/lib/ingest_names.py)."""

from __future__ import annotations

from datetime import UTC, datetime, time

import pytest

from dashboard.lib import ingest_names as names


@pytest.mark.parametrize(
    ("raw", "is_directory", "expected"),
    [
        (b"box-1", True, True),
        (b"box-1.zip", False, True),
        (b"box-1.TAR.GZ", False, True),
        (b"box-1.7z", False, True),
        (b"notes.txt", False, False),
        (b"zip", False, False),
    ],
)
def test_folders_and_archives_are_items_and_other_files_are_not(raw, is_directory, expected):
    assert names.is_item(raw, is_directory=is_directory) is expected


def test_an_archive_is_named_without_its_extension():
    assert names.transfer_name(b"box-1.tar.gz") == "box-1"
    assert names.transfer_name(b"box-1") == "box-1"
    assert names.transfer_name(b".zip") == ".zip"


def test_names_the_service_would_refuse_say_why():
    assert names.name_refusal(b"box", "box") == ""
    assert "UTF-8" in names.name_refusal(b"caf\xe9", "caf\\xe9")
    assert "control character" in names.name_refusal(b"a\tb", "a\tb")
    long = "é" * 110  # 220 bytes
    assert "220 bytes" in names.name_refusal(long.encode(), long)
    assert names.name_refusal(("é" * 109).encode(), "é" * 109) == ""


@pytest.mark.parametrize(
    ("pattern", "error"),
    [
        ("2026-{n:04}", ""),
        ("{name}", ""),
        ("fixed", ""),
        ("{year}", "only use {n} and {name}"),
        ("{n", "cannot be read"),
        ("{n:xyz}", "cannot be filled in"),
        ("{0}", "only use {n} and {name}"),
    ],
)
def test_accession_patterns_take_n_and_name_only(pattern, error):
    found = names.accession_pattern_error(pattern)
    assert (error in found) if error else found == ""


def test_an_accession_is_filled_in_from_the_number_and_the_name():
    assert names.accession_format("2026-{n:04}/{name}", number=7, name="box") == "2026-0007/box"


def test_a_window_reads_times_and_spans_midnight_in_the_pipelines_time_zone():
    start, end = names.window_parse("19:00–07:00")
    assert (start, end) == (time(19), time(7))
    assert names.window_parse("") is None
    for bad in ("7pm-7am", "24:00-01:00", "10:00-10:00"):
        with pytest.raises(ValueError):
            names.window_parse(bad)
    late = datetime(2026, 1, 10, 22, 0, tzinfo=UTC)
    noon = datetime(2026, 1, 10, 12, 0, tzinfo=UTC)
    assert names.window_open(start, end, now=late, time_zone="UTC")
    assert not names.window_open(start, end, now=noon, time_zone="UTC")
    # 12:00 UTC is 21:00 in Tokyo: inside the window there.
    assert names.window_open(start, end, now=noon, time_zone="Asia/Tokyo")
    assert names.window_open(None, None, now=noon, time_zone="UTC")
