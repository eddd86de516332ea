"""Display filters for the dashboard: the words of `dashboard.lib.vocabulary` in templates.

Formatting only; every word and formatter lives in the vocabulary. Labels always carry
text next to their icon, so status never depends on colour alone; the icon is hidden
from screen readers.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from django import template
from django.utils import timezone
from django.utils.html import escape, format_html
from django.utils.safestring import SafeString, mark_safe

from dashboard.lib import vocabulary
from dashboard.lib.pipelines import pipeline_list

register = template.Library()

MISSING = vocabulary.MISSING
# Underscores join the words of file-like names (`smith_family_papers`); browsers
# already wrap after spaces, hyphens and slashes, never after an underscore.
_WORD_SEPARATORS = re.compile(r"(_+)(?=[^_\s])")


def _badge(term: vocabulary.Term) -> SafeString:
    return format_html(
        '<span class="status status-{}">'
        '<span class="status-icon" aria-hidden="true">{}</span> {}</span>',
        term.modifier,
        term.icon,
        term.text,
    )


@register.simple_tag
def status_label(status: str | None, sent_to_backlog: bool = False) -> SafeString:
    """A unit or job status as icon + words."""
    return _badge(vocabulary.unit_status(status, sent_to_backlog=sent_to_backlog))


@register.filter
def status_text(status: str | None) -> str:
    """A unit status in words only, e.g. for a heading that counts units in it."""
    return vocabulary.unit_status(status).text


@register.simple_tag
def package_status_label(status: str | None) -> SafeString:
    """A package status as icon + words."""
    return _badge(vocabulary.package_status(status))


@register.simple_tag
def outcome_label(outcome: str) -> SafeString:
    return _badge(vocabulary.outcome(outcome))


@register.filter
def purpose_label(code: str | None) -> str:
    return vocabulary.purpose_label(code)


@register.filter
def package_type_label(code: str | None) -> str:
    return vocabulary.package_type_label(code)


@register.filter
def package_type_noun(count: int, code: str) -> str:
    """`{{ n|package_type_noun:"AIP" }}` -> `AIPs`; `{{ 1|package_type_noun:"transfer" }}`."""
    return vocabulary.package_type_noun(count, code)


@register.filter
def protocol_label(code: str | None) -> str:
    return vocabulary.protocol_label(code)


@register.filter
def kind_label(kind: str | None) -> str:
    return vocabulary.unit_kind_label(kind)


@register.filter
def decision_label(unit: Any) -> str:
    return vocabulary.decision_label(unit.decision, unit.microservice)


@register.filter
def wrappable(name: object) -> SafeString:
    """A name that may wrap after its underscores as well as where browsers wrap anyway.

    `smith_family_papers_batch_05` then wraps between its words instead of stretching a
    table or being broken mid-word. Escaped first; the only markup added is `<wbr>`.
    """
    return mark_safe(_WORD_SEPARATORS.sub(r"\1<wbr>", escape(name)))


@register.filter
def duration(seconds: float | int | None) -> str:
    """Seconds as a short span: `< 1 s`, `42 s`, `3 min`, `2 h 10 min`, `3 days`."""
    return vocabulary.duration(None if seconds is None else float(seconds))


@register.filter
def task_duration(task: dict[str, Any]) -> str:
    """A task's duration as the service reported it: `< 1 s`, a span, or missing."""
    if task.get("duration_under_one_second"):
        return vocabulary.under_a_second()
    # None: no end time yet, or fetched without details.
    return vocabulary.duration(task.get("duration_seconds"))


def _seconds_since(moment: datetime | None) -> float | None:
    if moment is None:
        return None
    return max(0.0, (timezone.now() - moment).total_seconds())


@register.filter
def age(moment: datetime | None) -> str:
    """How long since an aware datetime, as a span (`12 s`); `—` when unknown."""
    return vocabulary.duration(_seconds_since(moment))


@register.filter
def ago(moment: datetime | float | int | None) -> str:
    """When something happened: `just now`, `3 min ago`; from a datetime or seconds."""
    if isinstance(moment, datetime):
        return vocabulary.ago(_seconds_since(moment))
    return vocabulary.ago(None if moment is None else float(moment))


@register.filter
def filesize(size: int | None) -> str:
    """Bytes, 1024-based: `1023 bytes`, `1.5 KiB`, `2.0 GiB`."""
    return vocabulary.filesize(size)


@register.filter
def count_noun(count: int, nouns: str) -> str:
    """`{{ n|count_noun:"unit" }}` -> `1 unit`, `2 units`; irregular: `"index,indices"`."""
    singular, _, plural_form = nouns.partition(",")
    return vocabulary.count_noun(count, singular, plural_form or None)


@register.filter
def plural(count: int, words: str) -> str:
    """The word for `count`: `{{ n|plural:"matches,match" }}`, `{{ n|plural:"object" }}`."""
    singular, _, plural_form = words.partition(",")
    return vocabulary.plural(count, singular, plural_form or None)


@register.filter
def seconds_ago(moment: datetime | None) -> float:
    """Seconds since an aware datetime (0 when unknown), for `_age.html`."""
    if moment is None:
        return 0.0
    return max(0.0, (timezone.now() - moment).total_seconds())


@register.filter
def clock(moment: datetime | None) -> str:
    """A naive upstream timestamp (the workflow server's own clock), to the second."""
    if moment is None:
        return MISSING
    return moment.strftime("%Y-%m-%d %H:%M:%S")


@register.filter
def nonzero_exit(code: int | None) -> bool:
    return code is not None and code != 0


@register.filter
def service_label(service: str) -> str:
    """`workflow:default` -> `Workflow service (Default pipeline)`."""
    return vocabulary.service_label(service, {p.slug: p.name for p in pipeline_list()})


@register.filter
def action_label(action: str) -> str:
    """`package_fixity_check` -> "Package fixity checked", in the reader's language."""
    return vocabulary.audit_action(action)


@register.filter
def is_observed(times_from: str | None) -> bool:
    """Whether a `*_from` field says Lookout observed the time itself (pages say "at least")."""
    return times_from == "observed"


@register.simple_tag
def ingest_item_state_label(state: str | None) -> SafeString:
    """An ingest item's state as icon + words."""
    return _badge(vocabulary.ingest_item_state(state))


@register.simple_tag
def term_label(term: vocabulary.Term) -> SafeString:
    """A status a view already looked up (e.g. a run's, which depends on its counts)."""
    return _badge(term)
