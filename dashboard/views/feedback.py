"""What a person is told after an action, shared by every page that offers actions."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django_stubs_ext import StrOrPromise

from dashboard.services import actions


def action_report(
    request: HttpRequest, result: actions.ActionResult, done_text: StrOrPromise
) -> None:
    """Tell the user what happened, in the upstream service's own words when it refused."""
    entry = result.entry
    label = entry.target_label or entry.target
    if result.repeated:
        outcome = (
            _("unknown, the first submit was interrupted; check the upstream service")
            if entry.outcome_unknown
            else entry.get_outcome_display()
        )
        text = _(
            "This confirmation was already submitted; nothing was sent again. Outcome: %(outcome)s."
        ) % {"outcome": outcome}
        # The upstream service's own words follow as they came.
        if entry.upstream_message:
            text += f" {entry.upstream_message}"
        messages.info(request, text)
    elif result.ok:
        messages.success(
            request,
            _("%(done)s: %(target)s. %(upstream)s")
            % {"done": done_text, "target": label, "upstream": entry.upstream_message},
        )
    elif entry.outcome == actions.Outcome.REFUSED:
        messages.error(
            request,
            _("Not done for %(target)s: %(upstream)s")
            % {"target": label, "upstream": entry.upstream_message},
        )
    else:
        messages.error(
            request,
            _("Not done for %(target)s. %(upstream)s")
            % {"target": label, "upstream": entry.upstream_message},
        )
