"""The CSV checks behind `v2beta/validate/<validator>`.

Each validator returns None when the CSV is valid, or the reason it is not.
The checks are a handful of real rules, not the whole rule book.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable

RIGHTS_COLUMNS = (
    "file",
    "basis",
    "status",
    "determination_date",
    "jurisdiction",
    "start_date",
    "end_date",
    "note",
    "grant_act",
    "grant_restriction",
    "grant_start_date",
    "grant_end_date",
    "grant_note",
    "doc_id_type",
    "doc_id_value",
    "doc_id_role",
)
RIGHTS_REQUIRED = ("file", "basis")
RIGHTS_BASES = ("copyright", "statute", "license", "donor", "policy", "other")
RIGHTS_DATES = (
    "determination_date",
    "start_date",
    "end_date",
    "grant_start_date",
    "grant_end_date",
)
ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")

MANIFEST_REQUIRED = ("Title", "Date Issued")


def _rows(text: str) -> list[list[str]]:
    return [row for row in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in row)]


def validate_rights(text: str) -> str | None:
    rows = _rows(text)
    if not rows:
        return "The CSV file is empty."
    header = [cell.strip().lower() for cell in rows[0]]
    unknown = [name for name in header if name not in RIGHTS_COLUMNS]
    if unknown:
        return f"Unknown column(s): {', '.join(unknown)}."
    missing = [name for name in RIGHTS_REQUIRED if name not in header]
    if missing:
        return f"Missing required column(s): {', '.join(missing)}."
    for number, row in enumerate(rows[1:], start=2):
        record = dict(zip(header, (cell.strip() for cell in row), strict=False))
        if not record.get("file"):
            return f"Row {number}: the file column is empty."
        if record.get("basis", "").lower() not in RIGHTS_BASES:
            return f"Row {number}: basis must be one of {', '.join(RIGHTS_BASES)}."
        for column in RIGHTS_DATES:
            value = record.get(column, "")
            if value and value.lower() != "open" and not ISO_DATE.fullmatch(value):
                return f"Row {number}: {column} must be YYYY-MM-DD or open."
    return None


def validate_media_manifest(text: str) -> str | None:
    rows = _rows(text)
    if len(rows) < 3:
        return "A manifest needs a reference row, a header row and at least one item."
    reference = [cell.strip() for cell in rows[0]]
    if len(reference) < 2 or not reference[0] or not reference[1]:
        return "The first row must name the collection reference and the submitter."
    header = [cell.strip() for cell in rows[1]]
    missing = [name for name in MANIFEST_REQUIRED if name not in header]
    if missing:
        return f"Missing required column(s): {', '.join(missing)}."
    file_columns = [index for index, name in enumerate(header) if name == "File"]
    if not file_columns:
        return "The manifest has no File column."
    title = header.index("Title")
    for number, row in enumerate(rows[2:], start=3):
        cells = [cell.strip() for cell in row] + [""] * len(header)
        if not cells[title]:
            return f"Row {number}: Title is empty."
        if not any(cells[index] for index in file_columns):
            return f"Row {number}: no file is listed."
    return None


VALIDATORS: dict[str, Callable[[str], str | None]] = {
    "media_manifest": validate_media_manifest,
    "rights": validate_rights,
}
