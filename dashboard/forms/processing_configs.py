"""Which two processing configurations of a pipeline to compare."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import choice_field


class CompareForm(forms.Form):
    first = forms.ChoiceField(label=_("Compare"))
    second = forms.ChoiceField(label=_("with"))

    def __init__(self, *args: Any, names: tuple[str, ...], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choices = [(name, name) for name in names]
        choice_field(self, "first").choices = choices
        choice_field(self, "second").choices = choices
        if len(names) > 1:
            self.fields["first"].initial, self.fields["second"].initial = names[0], names[1]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("first") and data.get("first") == data.get("second"):
            self.add_error("second", _("Choose two different configurations."))
        return data
