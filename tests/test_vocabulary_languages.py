"""The vocabulary in another language: numbers, dates and plurals follow French rules.

Formats come from Django's own French locale, so most of these need no catalog of
Lookout's; the plural and word tests compile a small French catalog of their own.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.utils import translation

from dashboard.lib import vocabulary
from tests.support.catalogs import install_catalog

GIB = 1024**3

FRENCH = r"""
msgid "%(count)s byte"
msgid_plural "%(count)s bytes"
msgstr[0] "%(count)s octet"
msgstr[1] "%(count)s octets"

msgid "%(count)s day"
msgid_plural "%(count)s days"
msgstr[0] "%(count)s jour"
msgstr[1] "%(count)s jours"

msgid "%(duration)s ago"
msgstr "il y a %(duration)s"

msgctxt "binary size unit"
msgid "GiB"
msgstr "Gio"

msgctxt "unit status"
msgid "Failed"
msgstr "Échouée"

msgctxt "package status"
msgid "Failed"
msgstr "Échoué"
"""


@pytest.fixture
def french_catalog(tmp_path: Path, settings) -> None:
    install_catalog(tmp_path, settings, "fr", FRENCH)


def test_sizes_take_the_french_decimal_comma_and_units():
    with translation.override("fr"):
        assert vocabulary.filesize(1536) == "1,5 Kio"
        assert vocabulary.filesize(int(2.5 * GIB)) == "2,5 Gio"
        assert vocabulary.usage_text(930 * GIB, 1000 * GIB) == "930,0 Gio sur 1000,0 Gio (93,0 %)"
    assert vocabulary.filesize(1536) == "1.5 KiB"


def test_a_size_is_rounded_before_the_language_writes_it():
    # Django's number_format would cut 1023.999 to 1023,9; the vocabulary rounds.
    with translation.override("fr"):
        assert vocabulary.filesize(1024**2 - 1) == "1024,0 Kio"


def test_dates_follow_the_language():
    moment = datetime(2030, 1, 1, 12, 0, 5, tzinfo=UTC)

    assert vocabulary.moment(moment) == "Jan. 1, 2030 12:00:05 UTC"
    with translation.override("fr"):
        assert vocabulary.moment(moment) == "1 janvier 2030 12:00:05 UTC"


def test_french_sizes_read_gio_and_octets(french_catalog):
    with translation.override("fr"):
        assert vocabulary.filesize(int(1.5 * GIB)) == "1,5 Gio"
        assert vocabulary.filesize(1023) == "1023 octets"


def test_french_picks_the_singular_for_zero_and_one(french_catalog):
    with translation.override("fr"):
        # French counts 0 and 1 as singular, English only 1.
        assert vocabulary.filesize(0) == "0 octet"
        assert vocabulary.filesize(1) == "1 octet"
        assert vocabulary.filesize(2) == "2 octets"
        assert vocabulary.duration(2 * 86400) == "2 jours"
        assert vocabulary.duration(86400) == "1 jour"
    assert vocabulary.filesize(0) == "0 bytes"


def test_an_age_reads_naturally_in_french(french_catalog):
    with translation.override("fr"):
        assert vocabulary.ago(180) == "il y a 3 min"
        assert vocabulary.ago(3 * 86400) == "il y a 3 jours"


def test_a_status_agrees_with_its_noun(french_catalog):
    with translation.override("fr"):
        assert vocabulary.unit_status("FAILED").text == "Échouée"
        assert vocabulary.package_status("FAIL").text == "Échoué"
    # The same term reads in whichever language is active when it is read.
    assert vocabulary.unit_status("FAILED").text == "Failed"
