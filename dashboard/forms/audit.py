"""The audit page's filters: outcome, user and target, validated from the query string."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.lib import vocabulary
from dashboard.models import OUTCOME_UNKNOWN, AuditEntry


class AuditFilterForm(forms.Form):
    outcome = forms.ChoiceField(label=_("Outcome"), required=False)
    user = forms.CharField(label=_("User"), required=False, max_length=150, strip=True)
    target = forms.CharField(label=_("Target"), required=False, max_length=255, strip=True)

    FILTERS = ("outcome", "user", "target")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        codes = [*AuditEntry.Outcome.values, OUTCOME_UNKNOWN]
        outcome = self.fields["outcome"]
        assert isinstance(outcome, forms.ChoiceField)
        outcome.choices = [("", _("Any"))] + [(c, vocabulary.outcome(c).text) for c in codes]
        self.fields["user"].widget.attrs.update({"placeholder": _("user name")})
        self.fields["target"].widget.attrs.update(
            {"type": "search", "placeholder": _("name or UUID")}
        )

    def full_clean(self) -> None:
        # `?outcome=FAILED` works too, as the API's filters do.
        if self.is_bound and "outcome" in self.data:
            self.data = {
                **{key: self.data.get(key) for key in self.data},
                "outcome": str(self.data.get("outcome") or "").lower(),
            }
        super().full_clean()

    def filters(self) -> dict[str, str]:
        """The valid filters only; an invalid field is dropped (and reported by the page)."""
        if not self.is_bound:
            return {}
        self.is_valid()
        data = getattr(self, "cleaned_data", {})
        return {name: data[name] for name in self.FILTERS if data.get(name)}
