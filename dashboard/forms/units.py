"""Forms for query-string filters and action confirmations.

Filters are validated here so a hand-edited URL gives a message, never a 500.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors.units import UNIT_KINDS, UNIT_STATUSES


def choice_field(form: forms.Form, name: str) -> forms.ChoiceField:
    """`form.fields[name]` as the choice field it is (`fields` is typed as plain fields)."""
    field = form.fields[name]
    assert isinstance(field, forms.ChoiceField)
    return field


class UnitFilterForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=200, strip=True)
    status = forms.ChoiceField(label=_("Status"), required=False)
    kind = forms.ChoiceField(label=_("Kind"), required=False)
    pipeline = forms.ChoiceField(label=_("Pipeline"), required=False)
    failed_job = forms.CharField(
        label=_("Failed at job"), required=False, max_length=255, strip=True
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        any_choice = [("", _("Any"))]
        choice_field(self, "status").choices = any_choice + [
            (s, vocabulary.unit_status(s).text) for s in UNIT_STATUSES
        ]
        choice_field(self, "kind").choices = any_choice + [
            (k, vocabulary.unit_kind_label(k)) for k in UNIT_KINDS
        ]
        choice_field(self, "pipeline").choices = any_choice + [
            (p.slug, p.name) for p in pipeline_list()
        ]
        self.fields["q"].widget.attrs.update(
            {"type": "search", "placeholder": _("name, directory or UUID")}
        )

    def filters(self) -> dict[str, str]:
        """The valid filters only; an invalid field is dropped (and reported by the page)."""
        if not self.is_bound:
            return {}
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {name: data[name] for name in self.fields if data.get(name)}


class TaskFilterForm(forms.Form):
    nonzero = forms.BooleanField(label=_("Only non-zero exit codes"), required=False)


class ConfirmActionForm(forms.Form):
    """The confirmation step of an action; its token makes a double submit harmless."""

    idempotency_key = forms.RegexField(
        regex=r"^[A-Za-z0-9_-]{16,64}$", widget=forms.HiddenInput, required=True
    )
    next = forms.CharField(widget=forms.HiddenInput, required=False, max_length=500)


class DecisionAnswerForm(ConfirmActionForm):
    """Pick one of a pending decision's choices (the service's keys, shown by label)."""

    job = forms.RegexField(regex=r"^[0-9a-fA-F-]{36}$", widget=forms.HiddenInput, required=True)
    choice = forms.CharField(
        label=_("Answer"), max_length=200, required=True, widget=forms.RadioSelect
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The choices come with the unit (initial); a re-posted form keeps the picked key.
        offered = list(self.initial.get("choices") or [])
        picked = self.data.get("choice") if self.is_bound else None
        if picked and picked not in dict(offered):
            offered.append((picked, picked))
        self.fields["choice"].widget.choices = offered


class OpenMultipleField(forms.MultipleChoiceField):
    """Several values carried in hidden inputs, with no fixed choices: `clean` checks them."""

    widget = forms.MultipleHiddenInput

    def valid_value(self, value: str) -> bool:
        return True


class UuidsField(OpenMultipleField):
    """Unit UUIDs, from ticked boxes or hidden inputs; any number, each a UUID."""

    def clean(self, value: Any) -> list[str]:
        texts = super().clean(value)
        field = forms.UUIDField()
        return list(dict.fromkeys(str(field.clean(text)) for text in texts))


class BulkHideChoiceForm(forms.Form):
    """What to hide: the ticked units, or every failed unit older than some days."""

    units = UuidsField(required=False)
    failed_older_than = forms.IntegerField(
        label=_("Failed more than this many days ago"), required=False, min_value=1, max_value=3650
    )
    pipeline = forms.CharField(required=False, max_length=40)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("units") and not data.get("failed_older_than"):
            raise forms.ValidationError(
                _("Tick the finished units to hide, or give a number of days for failed units.")
            )
        return data


class BulkHideConfirmForm(ConfirmActionForm):
    units = UuidsField(error_messages={"required": _("No unit to hide.")})
    criterion = forms.CharField(widget=forms.HiddenInput, required=False, max_length=200)


class UndoHideForm(ConfirmActionForm):
    """The undo button of a bulk hide's notice."""


class PartialReingestForm(ConfirmActionForm):
    """Starting a partial reingest: the AIP's directory name in the shared tmp area."""

    name = forms.CharField(
        label=_("AIP name"),
        max_length=255,
        strip=True,
        help_text=_(
            "The AIP's directory in the workflow service's shared tmp area, where the "
            "storage service extracts it for a reingest (usually <name>-<UUID>)."
        ),
    )

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"]
        if "/" in name or name in {".", ".."}:
            raise forms.ValidationError(_("A directory name, without any slash."))
        return name
