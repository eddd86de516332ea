"""Forms of the new-ingest-run pages: the source folder, the run's settings, the
confirmation, and the items filter of the run page.

The folder travels as an encoded browse path (raw bytes: names need not be UTF-8). The
views add the run services' own checks (`ingest_runs.ingest_run_check`) to the form's
fields, so the form and the API word a mistake the same way.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.storage import encode_browse_path
from dashboard.forms.transfers import decode_pick, transfer_sources
from dashboard.forms.units import ConfirmActionForm, choice_field
from dashboard.lib import vocabulary
from dashboard.lib.pipelines import PipelineConfig, pipeline_list
from dashboard.models import IngestItem
from dashboard.selectors.processing_configs import processing_config_names

CONFIG_PREFIX = "config_"
# Fields the run services take under the same name and in the same form.
SERVICE_NAMED = (
    "name",
    "transfer_type",
    "accession",
    "auto_approve",
    "max_in_flight",
    "window",
    "depth",
    "watch",
    "hide_when_stored",
    "skip_existing",
)
# Service error keys -> the form field that shows them ("" : above the form).
SERVICE_FIELDS = {
    "name": "name",
    "pipelines": "pipelines",
    "transfer_type": "transfer_type",
    "accession": "accession",
    "max_in_flight": "max_in_flight",
    "window": "window",
    "depth": "depth",
    "settle_seconds": "settle_minutes",
    "path": "folder",
    "source_location": "location",
}


def config_field_name(slug: str) -> str:
    return f"{CONFIG_PREFIX}{slug}"


class IngestSourceForm(forms.Form):
    """Step 1: the transfer source location (its folder is then browsed)."""

    location = forms.ChoiceField(
        label=_("Transfer source"),
        help_text=_("The storage service's locations with purpose “transfer source”."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "location").choices = [
            (loc.uuid, f"{loc.label} ({loc.path})") for loc in transfer_sources()
        ]


class FolderField(forms.CharField):
    """A folder as the browse pages encode it, decoded to raw bytes."""

    widget = forms.HiddenInput

    def to_python(self, value: Any) -> bytes | str:  # type: ignore[override]
        text = super().to_python(value)
        # "" (not b""): the required check only knows text as empty.
        return decode_pick(text) if text else ""


class IngestRunForm(IngestSourceForm):
    """Step 2: everything a run needs besides its folder, which step 1 chose."""

    folder = FolderField(
        label=_("Folder"),
        error_messages={"required": _("Choose the folder whose items are to be ingested.")},
    )
    name = forms.CharField(label=_("Run name"), max_length=200, strip=True)
    pipelines = forms.MultipleChoiceField(
        label=_("Pipelines"),
        widget=forms.CheckboxSelectMultiple,
        error_messages={"required": _("Choose at least one pipeline.")},
        help_text=_("Each item goes to the pipeline with a free slot and the least work."),
    )
    transfer_type = forms.ChoiceField(
        label=_("Transfer type"),
        choices=list(vocabulary.TRANSFER_TYPES.items()),
        initial="standard",
    )
    accession = forms.CharField(
        label=_("Accession number pattern"),
        required=False,
        max_length=255,
        help_text=_("{n} is the item's number ({n:04} pads it to 4 digits), {name} its name."),
    )
    auto_approve = forms.BooleanField(
        label=_("Approve each transfer automatically"), required=False, initial=True
    )
    max_in_flight = forms.IntegerField(
        label=_("Most transfers in flight per pipeline"),
        initial=2,
        min_value=1,
        max_value=1000,
        error_messages={"min_value": _("At least one transfer must be allowed in flight.")},
    )
    window = forms.CharField(
        label=_("Time window"),
        required=False,
        max_length=20,
        help_text=_(
            "Start transfers only between these times, in each pipeline's time zone, "
            "e.g. 19:00-07:00. Empty: at any time."
        ),
    )
    depth = forms.TypedChoiceField(
        label=_("Items are"),
        coerce=int,
        initial=1,
        choices=[
            (1, _("the folder's children")),
            (2, _("its grandchildren (a folder of accessions)")),
        ],
    )
    watch = forms.BooleanField(
        label=_("Keep watching the folder for new items"),
        required=False,
        help_text=_("Until the run is paused or cancelled."),
    )
    settle_minutes = forms.IntegerField(
        label=_("Settle time (minutes)"),
        initial=10,
        min_value=0,
        max_value=7 * 24 * 60,
        help_text=_("A new item is queued once unchanged for this long (watched folders)."),
    )
    hide_when_stored = forms.BooleanField(
        label=_("Hide each transfer and SIP in the workflow service once its AIP is stored"),
        required=False,
    )
    skip_existing = forms.BooleanField(
        label=_("Skip items already stored or known to Lookout"), required=False, initial=True
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        pipelines = pipeline_list()
        choice_field(self, "pipelines").choices = [(p.slug, p.name) for p in pipelines]
        self.fields["pipelines"].initial = [p.slug for p in pipelines]
        for pipeline in pipelines:
            names = processing_config_names(pipeline=pipeline)
            self.fields[config_field_name(pipeline.slug)] = forms.ChoiceField(
                label=_("Processing configuration on %(pipeline)s") % {"pipeline": pipeline.name},
                choices=[(name, name) for name in names],
                initial="default" if "default" in names else names[0],
                required=False,
            )

    def config_fields(self) -> list[tuple[PipelineConfig, forms.BoundField]]:
        return [(p, self[config_field_name(p.slug)]) for p in pipeline_list()]

    def folder_shown(self) -> str:
        raw = self._folder_raw()
        return raw.decode("utf-8", "backslashreplace") if raw else ""

    def _folder_raw(self) -> bytes:
        if hasattr(self, "cleaned_data") and "folder" in self.cleaned_data:
            return bytes(self.cleaned_data["folder"])
        text = self.data.get("folder") if self.is_bound else self.initial.get("folder")
        try:
            return decode_pick(str(text)) if text else b""
        except forms.ValidationError:
            return b""

    def run_values(self) -> dict[str, Any]:
        """The cleaned data as the run services take it (`IngestRunRequest`)."""
        data = self.cleaned_data
        return {
            **{name: data[name] for name in SERVICE_NAMED},
            "source_location": data["location"],
            "path": data["folder"],
            "pipelines": tuple(data["pipelines"]),
            "processing_configs": {
                slug: data.get(config_field_name(slug)) or "default" for slug in data["pipelines"]
            },
            "settle_seconds": data["settle_minutes"] * 60,
        }

    def add_service_errors(self, errors: dict[str, str]) -> None:
        for key, message in errors.items():
            field = SERVICE_FIELDS.get(key)
            if key == "processing_config":
                field = "pipelines"
            self.add_error(field, message)

    def encoded_folder(self) -> str:
        return encode_browse_path(self.cleaned_data["folder"])


class IngestRunConfirmForm(IngestRunForm, ConfirmActionForm):
    """The confirmation's form: everything chosen, hidden, plus the one-time key."""


class IngestItemFilterForm(forms.Form):
    state = forms.ChoiceField(label=_("State"), required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "state").choices = [("", _("Any"))] + [
            (state, vocabulary.ingest_item_state(state).text) for state in IngestItem.State.values
        ]

    def chosen_state(self) -> str:
        return str(self.cleaned_data.get("state") or "") if self.is_valid() else ""
