"""Forms of the levels-of-description page: an arranged path, and its new level."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import ConfirmActionForm, choice_field

ARRANGE_PREFIX = "/arrange/"


def validate_arranged_path(value: str) -> None:
    if not value.startswith(ARRANGE_PREFIX) or len(value) <= len(ARRANGE_PREFIX):
        raise forms.ValidationError(
            _(
                "An arranged path starts with /arrange/ (the workflow service's arrangement "
                "area) and names something in it, e.g. /arrange/series-1/."
            )
        )
    if "\0" in value or "/../" in f"{value}/":
        raise forms.ValidationError(_("An arranged path cannot go up a directory."))


class PathForm(forms.Form):
    path = forms.CharField(
        label=_("Arranged path"),
        max_length=1000,
        strip=True,
        validators=[validate_arranged_path],
        help_text=_("As in the workflow service's arrangement area, e.g. /arrange/series-1/."),
    )


class SetLevelForm(ConfirmActionForm):
    path = forms.CharField(
        widget=forms.HiddenInput, max_length=1000, validators=[validate_arranged_path]
    )
    level_of_description = forms.ChoiceField(label=_("Level of description"), required=False)

    def __init__(self, *args: Any, levels: Sequence[tuple[str, str]] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "level_of_description").choices = [("", _("(none: clear it)"))] + list(
            levels
        )
