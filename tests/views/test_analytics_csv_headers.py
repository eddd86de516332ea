"""The analytics CSVs: column keys first by default, the columns' names on request.

Programs read the keys, which never change with the language; a person who opens the
file in a spreadsheet asks for `headers=localized` and reads the names in their language.
"""

from __future__ import annotations

import csv
import io

import pytest

from dashboard.forms.analytics import CSV_TABLES
from dashboard.views.analytics import CSV_COLUMNS
from tests.support.catalogs import install_catalog

pytestmark = pytest.mark.django_db
URL = "/analytics/"
FRENCH = r"""
msgctxt "CSV column"
msgid "Period"
msgstr "Période"

msgctxt "CSV column"
msgid "AIPs stored"
msgstr "AIP stockés"
"""


def _header(client, table: str, **params) -> list[str]:
    response = client.get(URL, {"csv": table, **params}, HTTP_ACCEPT_LANGUAGE="fr")
    assert response.status_code == 200
    return next(csv.reader(io.StringIO(response.content.decode())))


@pytest.mark.parametrize("table", CSV_TABLES)
def test_every_column_has_a_name_and_the_keys_stay_the_default(viewer, table):
    keys = _header(viewer, table)
    names = _header(viewer, table, headers="localized")

    assert all(key in CSV_COLUMNS for key in keys), keys
    assert names == [str(CSV_COLUMNS[key]) for key in keys]
    assert all(" " in name or name[0].isupper() for name in names)  # words, not keys


def test_the_names_follow_the_readers_language(viewer, settings, tmp_path):
    install_catalog(tmp_path, settings, "fr", FRENCH)
    settings.LANGUAGE_CODE = "fr"

    keys = _header(viewer, "throughput")
    names = _header(viewer, "throughput", headers="localized")

    assert keys[:4] == ["period", "transfers_started", "sips_started", "aips_stored"]
    assert names[0] == "Période"
    assert names[3] == "AIP stockés"


def test_an_unknown_header_choice_falls_back_to_the_page(viewer):
    response = viewer.get(URL, {"csv": "throughput", "headers": "klingon"})

    assert response["Content-Type"].startswith("text/html")
