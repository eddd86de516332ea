"""The login form: says so when the directory could not be reached, instead of taking
the failure for a wrong password."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.forms import AuthenticationForm
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from dashboard.lib.directory_status import unreachable_during


class LoginForm(AuthenticationForm):
    error_messages = {
        **AuthenticationForm.error_messages,
        "invalid_login": _("Your user name and password did not match. Please try again."),
        "directory_unreachable": _(
            "The directory that checks passwords could not be reached, so your password "
            "could not be checked. Please try again in a few minutes; if this goes on, "
            "tell your Lookout administrator."
        ),
    }

    def clean(self) -> dict[str, Any]:
        try:
            return super().clean()
        except ValidationError as error:
            if error.code == "invalid_login" and unreachable_during(self.request):
                raise ValidationError(
                    self.error_messages["directory_unreachable"], code="directory_unreachable"
                ) from None
            raise
