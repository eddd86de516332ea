"""Forms of the storage pages: the package filters and the package action confirmations.

Choices for locations and pipelines come from what the storage poller cached.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import ConfirmActionForm, choice_field
from dashboard.lib import vocabulary
from dashboard.models import StoragePackage
from dashboard.selectors import storage as storage_selectors


class PackageFilterForm(forms.Form):
    q = forms.CharField(label=_("Name or UUID"), required=False, max_length=200, strip=True)
    package_type = forms.ChoiceField(label=_("Type"), required=False)
    status = forms.ChoiceField(label=_("Status"), required=False)
    location = forms.ChoiceField(label=_("Location"), required=False)
    pipeline = forms.ChoiceField(label=_("Origin pipeline"), required=False)
    sort = forms.ChoiceField(label=_("Sort"), required=False)

    FILTERS = ("q", "package_type", "status", "location", "pipeline")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        any_choice = [("", _("Any"))]
        choice_field(self, "package_type").choices = any_choice + [
            (t, vocabulary.package_type_label(t)) for t in storage_selectors.PACKAGE_TYPES
        ]
        choice_field(self, "status").choices = any_choice + [
            (s, vocabulary.package_status(s).text) for s in storage_selectors.PACKAGE_STATUSES
        ]
        choice_field(self, "location").choices = any_choice + [
            (loc.uuid, f"{loc.purpose_label}: {loc.label}")
            for loc in storage_selectors.location_list()
        ]
        choice_field(self, "pipeline").choices = any_choice + [
            (p.uuid, p.label) for p in storage_selectors.pipeline_list()
        ]
        choice_field(self, "sort").choices = list(storage_selectors.SORT_LABELS.items())
        self.fields["q"].widget.attrs.update({"type": "search", "placeholder": _("name or UUID")})

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


# URL-safe base64 as `encode_browse_path` writes it, padding optional.
_BROWSE_PATH = re.compile(r"[A-Za-z0-9_-]*={0,2}")
BAD_BROWSE_PATH = _(
    "The folder in the address (?path=…) is not valid, so nothing is listed: "
    "the address was changed or cut short."
)


class BrowsePathForm(forms.Form):
    """`?path=` of the browse page: URL-safe base64 of the raw path bytes.

    Raw bytes, because directory names need not be UTF-8. A value that is not such
    base64 is refused, never read as the location's top folder.
    """

    path = forms.CharField(
        required=False,
        max_length=8000,
        error_messages={"max_length": _("The folder in the address (?path=…) is too long.")},
    )

    def clean_path(self) -> bytes:
        text = self.cleaned_data.get("path") or ""
        if not text:
            return b""
        # The decoder skips characters outside the alphabet, so check them first.
        if not _BROWSE_PATH.fullmatch(text):
            raise forms.ValidationError(BAD_BROWSE_PATH)
        try:
            raw = base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
        except (binascii.Error, ValueError):
            raise forms.ValidationError(BAD_BROWSE_PATH) from None
        if b"\0" in raw:
            raise forms.ValidationError(BAD_BROWSE_PATH)
        parts = [part for part in raw.split(b"/") if part not in (b"", b".")]
        if b".." in parts:
            raise forms.ValidationError(_("A path may not go up a directory."))
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
        label=_("Reason"),
        max_length=2000,
        strip=True,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text=_("Shown to the storage service's administrators who approve or reject it."),
    )
    pipeline = forms.ChoiceField(
        label=_("Pipeline"), help_text=_("The pipeline the request is made on.")
    )

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "pipeline").choices = _pipeline_choices()
        self.fields["pipeline"].initial = package.origin_pipeline_uuid


class ReingestForm(ConfirmActionForm):
    pipeline = forms.ChoiceField(
        label=_("Pipeline"), help_text=_("The pipeline that reingests it.")
    )
    reingest_type = forms.ChoiceField(
        label=_("Reingest type"), choices=vocabulary.reingest_type_choices
    )
    processing_config = forms.RegexField(
        label=_("Processing configuration"),
        regex=r"^[A-Za-z0-9_.-]{1,100}$",
        required=False,
        initial="default",
        help_text=_("Used by a full reingest; a name the pipeline knows."),
        error_messages={"invalid": _("Letters, digits, dots, dashes and underscores only.")},
    )

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "pipeline").choices = _pipeline_choices()
        self.fields["pipeline"].initial = package.origin_pipeline_uuid

    def clean(self) -> dict[str, Any]:
        super().clean()
        data = self.cleaned_data
        if data.get("reingest_type") != vocabulary.FULL_REINGEST:
            data["processing_config"] = ""
        elif not data.get("processing_config"):
            data["processing_config"] = "default"
        return data


class MoveForm(ConfirmActionForm):
    location = forms.ChoiceField(
        label=_("Move to"), help_text=_("Only enabled locations with the same purpose are offered.")
    )

    def __init__(self, *args: Any, package: StoragePackage, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "location").choices = [
            (loc.uuid, f"{loc.label} ({loc.path})")
            for loc in storage_selectors.move_destinations(package=package)
        ]
