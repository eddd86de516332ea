"""The header's search box."""

from __future__ import annotations

from django import forms
from django.utils.translation import gettext_lazy as _


class SearchForm(forms.Form):
    q = forms.CharField(label=_("Search"), required=False, max_length=200, strip=True)
