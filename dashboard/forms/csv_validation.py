"""The CSV validation form: pipeline, validator, the file, and the one-time key."""

from __future__ import annotations

from typing import Any

from django import forms
from django.conf import settings
from django.utils.translation import gettext_lazy as _

from dashboard.forms.units import choice_field
from dashboard.lib.csv_validators import CSV_VALIDATORS
from dashboard.lib.pipelines import pipeline_list
from dashboard.lib.vocabulary import filesize


def too_large_message(size: int | None = None) -> str:
    limit = filesize(settings.LOOKOUT_CSV_MAX_BYTES)
    if size is None:
        return _("The file is larger than the %(limit)s Lookout accepts; it was not sent.") % {
            "limit": limit
        }
    return _(
        "The file is %(size)s, larger than the %(limit)s Lookout accepts; it was not sent."
    ) % {"size": filesize(size), "limit": limit}


class CsvValidationForm(forms.Form):
    pipeline = forms.ChoiceField(label=_("Pipeline"))
    validator = forms.ChoiceField(label=_("Validator"), choices=list(CSV_VALIDATORS.items()))
    csv_file = forms.FileField(label=_("CSV file"))
    idempotency_key = forms.RegexField(
        regex=r"^[A-Za-z0-9_-]{16,64}$", widget=forms.HiddenInput, required=True
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        choice_field(self, "pipeline").choices = [(p.slug, p.name) for p in pipeline_list()]
        self.fields["csv_file"].widget.attrs.update(
            {
                "accept": ".csv,text/csv",
                "data-max-bytes": str(settings.LOOKOUT_CSV_MAX_BYTES),
                "data-too-large": too_large_message(),
            }
        )

    def clean_csv_file(self) -> Any:
        upload = self.cleaned_data["csv_file"]
        if upload.size > settings.LOOKOUT_CSV_MAX_BYTES:
            raise forms.ValidationError(too_large_message(upload.size))
        raw = upload.read()
        try:
            self.cleaned_data["text"] = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise forms.ValidationError(
                _("The file is not UTF-8 text; save it as CSV UTF-8 and try again.")
            ) from None
        return upload
