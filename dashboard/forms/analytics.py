"""The analytics page's query string: period, custom dates, pipeline, CSV table."""

from __future__ import annotations

from datetime import date, timedelta
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import choice_field
from dashboard.lib.pipelines import pipeline_list
from dashboard.selectors.analytics import CUSTOM, PERIODS

CSV_TABLES = ("throughput", "stages", "waits", "approvals", "failures", "failed-jobs", "queue")
# A custom period may reach this far back (the rollups are per day).
LONGEST_CUSTOM = timedelta(days=3 * 366)
DEFAULT_PERIOD = "30d"
LOCALIZED_HEADERS = "localized"


class AnalyticsFilterForm(forms.Form):
    period = forms.ChoiceField(label=_("Period"), required=False)
    start = forms.DateField(label=_("From"), required=False)
    end = forms.DateField(label=_("To"), required=False)
    pipeline = forms.ChoiceField(label=_("Pipeline"), required=False)
    csv = forms.ChoiceField(required=False, choices=[(t, t) for t in CSV_TABLES])
    # The CSV's first row: the column keys (the default, for programs), or the columns'
    # names in the reader's language.
    headers = forms.ChoiceField(
        required=False, choices=[(value, value) for value in ("keys", LOCALIZED_HEADERS)]
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "period").choices = [*PERIODS.items(), (CUSTOM, _("Custom dates"))]
        # The picker shows the period the page reads when none is asked for.
        self.fields["period"].initial = DEFAULT_PERIOD
        choice_field(self, "pipeline").choices = [("", _("All pipelines"))] + [
            (p.slug, p.name) for p in pipeline_list()
        ]
        for name in ("start", "end"):
            self.fields[name].widget = forms.DateInput(attrs={"type": "date"})

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("period") == CUSTOM:
            start: date | None = data.get("start")
            end: date | None = data.get("end")
            if start is None or end is None:
                raise forms.ValidationError(
                    _("A custom period needs both a start and an end date.")
                )
            if end < start:
                raise forms.ValidationError(_("The end date is before the start date."))
            if end > timezone.localdate() or end - start > LONGEST_CUSTOM:
                raise forms.ValidationError(
                    _("A custom period ends today at the latest and spans three years at most.")
                )
        return data

    def choices(self) -> dict[str, Any]:
        """The valid choice, or the defaults (last 30 days, all pipelines)."""
        if not self.is_bound or not self.is_valid():
            return {
                "period": DEFAULT_PERIOD,
                "start": None,
                "end": None,
                "pipeline": "",
                "csv": "",
                "localized_headers": False,
            }
        data = self.cleaned_data
        return {
            "period": data.get("period") or DEFAULT_PERIOD,
            "start": data.get("start"),
            "end": data.get("end"),
            "pipeline": data.get("pipeline") or "",
            "localized_headers": data.get("headers") == LOCALIZED_HEADERS,
            "csv": data.get("csv") or "",
        }
