"""The personal API token forms: a name and the one-time key of the form."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import ConfirmActionForm
from dashboard.models import ApiToken


class ApiTokenCreateForm(ConfirmActionForm):
    name = forms.CharField(
        label=_("Name"),
        max_length=ApiToken._meta.get_field("name").max_length,
        help_text=_("What will use it, for example “nightly report script”."),
    )
