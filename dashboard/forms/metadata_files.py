"""Forms for adding metadata files to a SIP: the location, then the picked paths."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.transfers import PicksField, transfer_sources
from dashboard.forms.units import ConfirmActionForm, choice_field


class MetadataSourceForm(forms.Form):
    location = forms.ChoiceField(
        label=_("Transfer source"),
        help_text=_("The storage service's locations with purpose “transfer source”."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "location").choices = [
            (loc.uuid, f"{loc.label} ({loc.path})") for loc in transfer_sources()
        ]


class MetadataPicksForm(MetadataSourceForm):
    picks = PicksField(
        label=_("Files"), error_messages={"required": _("Choose at least one file.")}
    )


class MetadataFilesForm(MetadataPicksForm, ConfirmActionForm):
    """The confirmation: the location, the picked paths and the one-time key."""
