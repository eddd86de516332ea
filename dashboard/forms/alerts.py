"""Forms of the alerts pages: the list's filters, rule changes, channels, silences."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _
from django_stubs_ext import StrOrPromise

from dashboard.forms.units import choice_field
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import AlertChannel, AlertKind

SILENCE_CHOICES = [(1, _("1 hour")), (4, _("4 hours")), (24, _("1 day")), (168, _("1 week"))]


class AlertFilterForm(forms.Form):
    state = forms.ChoiceField(
        label=_("State"),
        required=False,
        choices=[
            ("", _("Any")),
            ("open", _("Open")),
            ("silenced", _("Silenced")),
            ("resolved", _("Resolved")),
        ],
    )
    kind = forms.ChoiceField(label=_("Rule"), required=False)
    pipeline = forms.ChoiceField(label=_("Pipeline"), required=False)
    baseline = forms.ChoiceField(
        label=_("Announced"),
        required=False,
        choices=[
            ("", _("Any")),
            ("new", _("Sent to channels")),
            ("baseline", _("Already there at first look")),
        ],
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "kind").choices = [("", _("Any")), *AlertKind.choices]
        choice_field(self, "pipeline").choices = [("", _("Any"))] + [
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


def language_choices() -> list[tuple[str, str]]:
    # Read when a form is made, so that LANGUAGES changed in a test or a deploy shows.
    return [(code, str(_(name))) for code, name in settings.LANGUAGES]


class ChannelForm(forms.Form):
    kind = forms.ChoiceField(label=_("Kind"), choices=AlertChannel.Kind.choices)
    target = forms.CharField(
        label=_("Target"),
        # An Apprise URL can be long (a Teams workflow's address is ~300 characters).
        max_length=2000,
        help_text=_(
            "An e-mail address, the webhook's https:// address, or an Apprise URL such as "
            "workflows://…, matrix://…, mmost://… or ntfy://… (kept secret, shown masked)."
        ),
    )
    # Not required: a form sent without it (an older page) gets the site's language.
    language = forms.ChoiceField(
        choices=language_choices,
        required=False,
        label=_("Language"),
        help_text=_("The language its messages are written in."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("initial", {"language": settings.LANGUAGE_CODE})
        super().__init__(*args, **kwargs)


class ChannelLanguageForm(forms.Form):
    language = forms.ChoiceField(choices=language_choices)


# "" is off; the hours are read in TIME_ZONE.
DIGEST_HOUR_CHOICES: list[tuple[int | str, StrOrPromise]] = [
    ("", _("Off")),
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
        choices=[(0, _("Lift the silence")), *SILENCE_CHOICES], coerce=int, initial=24
    )
