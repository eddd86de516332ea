"""Forms of the start-transfer wizard.

Every step carries what the earlier ones chose as hidden fields, so the browser's back
button and a reload never lose a choice; the last step adds the one-time key.
"""

from __future__ import annotations

import unicodedata
from typing import Any

from django import forms

from dashboard.forms.storage import BrowsePathForm, encode_browse_path
from dashboard.forms.units import ConfirmActionForm, OpenMultipleField, choice_field
from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_get, pipeline_list
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors.processing_configs import processing_config_names

TRANSFER_SOURCE = "TS"
# The service makes `<name>-<uuid>` a directory name: 255 bytes less the UUID part.
NAME_MAX_BYTES = 255 - 37
NAME_RULES = (
    "Any letters, digits, spaces and punctuation, quotes included; no slash and no "
    "control characters, at most 218 bytes."
)


def validate_transfer_name(value: str) -> None:
    """Refuse the names the service cannot make a directory of (it names the transfer's)."""
    if not value.strip():
        raise forms.ValidationError("A transfer needs a name.")
    if "/" in value:
        raise forms.ValidationError("A transfer name cannot contain a slash (/).")
    if any(unicodedata.category(ch) in {"Cc", "Cs"} for ch in value):
        raise forms.ValidationError("A transfer name cannot contain control characters.")
    if value in {".", ".."}:
        raise forms.ValidationError("“.” and “..” are not transfer names.")
    if len(value.encode("utf-8")) > NAME_MAX_BYTES:
        raise forms.ValidationError(
            f"This name is too long: at most {NAME_MAX_BYTES} bytes (UTF-8)."
        )


def transfer_sources(pipeline: str = "") -> list[storage_selectors.LocationRow]:
    """Enabled transfer source locations, as the last storage poll saw them."""
    return [loc for loc in storage_selectors.location_list(purpose=TRANSFER_SOURCE) if loc.enabled]


def decode_pick(text: str) -> bytes:
    """A folder as the browse pages encode it; the errors of `BrowsePathForm`."""
    form = BrowsePathForm({"path": text})
    if not form.is_valid():
        raise forms.ValidationError("; ".join(form.errors.get("path", [])))  # type: ignore[arg-type]
    path: bytes = form.cleaned_data["path"]
    if not path:
        raise forms.ValidationError("Choose a folder inside the location, not its top.")
    return path


class SourceForm(forms.Form):
    """Step 1: the pipeline and the transfer source location."""

    pipeline = forms.ChoiceField(label="Pipeline")
    location = forms.ChoiceField(
        label="Transfer source",
        help_text="The storage service's locations with purpose “transfer source”.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "pipeline").choices = [(p.slug, p.name) for p in pipeline_list()]
        choice_field(self, "location").choices = [
            (loc.uuid, f"{loc.label} ({loc.path})") for loc in transfer_sources()
        ]
        self.fields["pipeline"].initial = pipeline_list()[0].slug if pipeline_list() else ""


class PicksField(OpenMultipleField):
    """The chosen folders, as encoded browse paths; decoded to raw bytes."""

    def clean(self, value: Any) -> list[bytes]:
        texts = super().clean(value)
        picks: list[bytes] = []
        for text in texts:
            path = decode_pick(text)
            if path not in picks:
                picks.append(path)
        return picks


class TransferForm(SourceForm):
    """Steps 2 and 3: the folders chosen, then what the service needs to start the transfer."""

    picks = PicksField(label="Folders", error_messages={"required": "Choose at least one folder."})
    name = forms.CharField(
        label="Transfer name",
        max_length=NAME_MAX_BYTES,
        validators=[validate_transfer_name],
        help_text=NAME_RULES,
    )
    transfer_type = forms.ChoiceField(
        label="Transfer type", choices=list(vocabulary.TRANSFER_TYPES.items()), initial="standard"
    )
    accession = forms.CharField(label="Accession number", required=False, max_length=255)
    processing_config = forms.ChoiceField(label="Processing configuration")
    auto_approve = forms.BooleanField(
        label="Approve automatically",
        required=False,
        initial=True,
        help_text="Otherwise the transfer waits on the Waiting page until someone approves it.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        slug = self.data.get("pipeline") if self.is_bound else self.initial.get("pipeline")
        pipeline = pipeline_get(str(slug or "")) or next(iter(pipeline_list()), None)
        names = processing_config_names(pipeline=pipeline) if pipeline is not None else ("default",)
        choice_field(self, "processing_config").choices = [(n, n) for n in names]
        self.fields["processing_config"].initial = names[0]

    def encoded_picks(self) -> list[str]:
        return [encode_browse_path(path) for path in self.cleaned_data.get("picks", [])]


class StartTransferForm(TransferForm, ConfirmActionForm):
    """The summary's form: everything chosen, plus the one-time key."""


def default_name(picks: list[bytes]) -> str:
    """The last folder name of the first pick, as the name field's first value."""
    if not picks:
        return ""
    return picks[0].rsplit(b"/", 1)[-1].decode("utf-8", "replace")
