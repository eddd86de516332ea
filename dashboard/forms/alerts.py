"""Forms of the alerts pages: the list's filters, rule changes, channels, silences."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import choice_field
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AlertChannel, AlertKind

SILENCE_CHOICES = [(1, "1 hour"), (4, "4 hours"), (24, "1 day"), (168, "1 week")]


class AlertFilterForm(forms.Form):
    state = forms.ChoiceField(
        label="State",
        required=False,
        choices=[("", "Any"), ("open", "Open"), ("silenced", "Silenced"), ("resolved", "Resolved")],
    )
    kind = forms.ChoiceField(label="Rule", required=False)
    pipeline = forms.ChoiceField(label="Pipeline", required=False)
    baseline = forms.ChoiceField(
        label="Announced",
        required=False,
        choices=[
            ("", "Any"),
            ("new", "Sent to channels"),
            ("baseline", "Already there at first look"),
        ],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "kind").choices = [("", "Any"), *AlertKind.choices]
        choice_field(self, "pipeline").choices = [("", "Any")] + [
            (p.slug, p.name) for p in pipeline_list()
        ]

    def filters(self) -> dict[str, str]:
        if not self.is_bound:
            return {"state": "open"}
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {
            name: data[name] for name in ("state", "kind", "pipeline", "baseline") if data.get(name)
        }


class RuleForm(forms.Form):
    enabled = forms.BooleanField(required=False)
    threshold = forms.IntegerField(min_value=0, max_value=100_000)


class ChannelForm(forms.Form):
    kind = forms.ChoiceField(choices=AlertChannel.Kind.choices)
    target = forms.CharField(
        # An Apprise URL can be long (a Teams workflow's address is ~300 characters).
        max_length=2000,
        help_text=_(
            "An e-mail address, the webhook's https:// address, or an Apprise URL such as "
            "workflows://…, matrix://…, mmost://… or ntfy://… (kept secret, shown masked)."
        ),
    )


# "" is off; the hours are read in TIME_ZONE.
DIGEST_HOUR_CHOICES: list[tuple[int | str, str]] = [
    ("", "Off"),
    *((hour, f"{hour:02d}:00") for hour in range(24)),
]


class DigestForm(forms.Form):
    hour = forms.TypedChoiceField(
        choices=DIGEST_HOUR_CHOICES,
        coerce=int,
        empty_value=None,
        required=False,
    )


class SilenceForm(forms.Form):
    hours = forms.TypedChoiceField(
        choices=[(0, "Lift the silence"), *SILENCE_CHOICES], coerce=int, initial=24
    )
