"""The workflow service's CSV validators (spec: `POST /api/v2beta/validate/<validator>`)."""

from __future__ import annotations

from collections.abc import Mapping

CSV_VALIDATORS: Mapping[str, str] = {
    "rights": "Rights (rights.csv)",
    "media_manifest": "Media manifest",
}
