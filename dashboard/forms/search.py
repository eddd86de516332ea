"""The header's search box."""

from __future__ import annotations

from django import forms


class SearchForm(forms.Form):
    q = forms.CharField(label="Search", required=False, max_length=200, strip=True)
