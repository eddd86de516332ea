"""Forms of the storage pages: the package filters and the package action confirmations.

Choices for locations and pipelines come from what the storage poller cached.
"""

from __future__ import annotations

import base64
import binascii
from typing import Any

from django import forms

from dashboard.clients.storage import ReingestType
from dashboard.forms.units import ConfirmActionForm
from dashboard.models import StoragePackage
from dashboard.selectors import storage as storage_selectors

# The values are what the storage service compares with (lower-cased); the words are ours.
REINGEST_TYPES = (
    (ReingestType.METADATA_ONLY.value, "Metadata only (keep the objects, rebuild the metadata)"),
    (ReingestType.OBJECTS.value, "Objects (reprocess the objects, keep the AIP's identity)"),
    (ReingestType.FULL.value, "Full (run the whole ingest again, with a processing configuration)"),
)


class PackageFilterForm(forms.Form):
    q = forms.CharField(label="Name or UUID", required=False, max_length=200, strip=True)
    package_type = forms.ChoiceField(label="Type", required=False)
    status = forms.ChoiceField(label="Status", required=False)
    location = forms.ChoiceField(label="Location", required=False)
    pipeline = forms.ChoiceField(label="Origin pipeline", required=False)
    sort = forms.ChoiceField(label="Sort", required=False)

    FILTERS = ("q", "package_type", "status", "location", "pipeline")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        any_choice = [("", "Any")]
        self.fields["package_type"].choices = any_choice + [
            (t, t) for t in storage_selectors.PACKAGE_TYPES
        ]
        self.fields["status"].choices = any_choice + [
            (s, storage_selectors.STATUS_LABELS[s]) for s in storage_selectors.PACKAGE_STATUSES
        ]
        self.fields["location"].choices = any_choice + [
            (loc.uuid, f"{loc.purpose_label}: {loc.label}")
            for loc in storage_selectors.location_list()
        ]
        self.fields["pipeline"].choices = any_choice + [
            (p.uuid, p.label) for p in storage_selectors.pipeline_list()
        ]
        self.fields["sort"].choices = list(storage_selectors.SORT_LABELS.items())
        self.fields["q"].widget.attrs.update({"type": "search", "placeholder": "name or UUID"})

    def filters(self) -> dict[str, str]:
        """The valid filters only; an invalid field is dropped (and reported by the page)."""
        if not self.is_bound:
            return {}
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {name: data[name] for name in self.FILTERS if data.get(name)}

    def chosen_sort(self) -> str:
        if not self.is_bound:
            return storage_selectors.DEFAULT_SORT
        self.is_valid()
        return getattr(self, "cleaned_data", {}).get("sort") or storage_selectors.DEFAULT_SORT


class BrowsePathForm(forms.Form):
    """`?path=` of the browse page: URL-safe base64 of the raw path bytes.

    Raw bytes, because directory names need not be UTF-8.
    """

    path = forms.CharField(required=False, max_length=8000)

    def clean_path(self) -> bytes:
        text = self.cleaned_data.get("path") or ""
        if not text:
            return b""
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            raise forms.ValidationError("This path is not valid.") from None
        parts = [part for part in raw.split(b"/") if part not in (b"", b".")]
        if b".." in parts:
            raise forms.ValidationError("A path may not go up a directory.")
        return b"/".join(parts)


def encode_browse_path(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode("ascii").rstrip("=")


def _pipeline_choices() -> list[tuple[str, str]]:
    return [(p.uuid, p.label) for p in storage_selectors.pipeline_list()]


class PackageConfirmForm(ConfirmActionForm):
    """Fixity check and download: nothing to choose, only to confirm."""


class PackageRequestForm(ConfirmActionForm):
    """A deletion or recovery request: the storage service's administrators decide."""

    reason = forms.CharField(
        label="Reason",
        max_length=2000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="Shown to the storage service's administrators who approve or reject it.",
    )
    pipeline = forms.ChoiceField(label="Pipeline", help_text="The pipeline the request is made on.")

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["pipeline"].choices = _pipeline_choices()
        self.fields["pipeline"].initial = package.origin_pipeline_uuid


class ReingestForm(ConfirmActionForm):
    pipeline = forms.ChoiceField(label="Pipeline", help_text="The pipeline that reingests it.")
    reingest_type = forms.ChoiceField(label="Reingest type", choices=REINGEST_TYPES)
    processing_config = forms.RegexField(
        label="Processing configuration",
        regex=r"^[A-Za-z0-9_.-]{1,100}$",
        required=False,
        initial="default",
        help_text="Used by a full reingest; a name the pipeline knows.",
        error_messages={"invalid": "Letters, digits, dots, dashes and underscores only."},
    )

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["pipeline"].choices = _pipeline_choices()
        self.fields["pipeline"].initial = package.origin_pipeline_uuid

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        if data.get("reingest_type") != ReingestType.FULL:
            data["processing_config"] = ""
        elif not data.get("processing_config"):
            data["processing_config"] = "default"
        return data


class MoveForm(ConfirmActionForm):
    location = forms.ChoiceField(
        label="Move to", help_text="Only enabled locations with the same purpose are offered."
    )

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.fields["location"].choices = [
            (loc.uuid, f"{loc.label} ({loc.path})")
            for loc in storage_selectors.move_destinations(package=package)
        ]
