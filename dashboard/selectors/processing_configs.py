"""Processing configurations as pages and the API show them: decisions in words.

Each stored configuration (see `services.processing_configs`) holds its choices as
(appliesTo, goToChain, the XML's comment label). A decision is named by the decision
point Lookout carries for `appliesTo` (`lib.decision_points`), its answer by that point's
choice for `goToChain`; where the table does not know the value (a replacement choice
named by UUID, a storage location URI) the XML's own label says it, and only when there
is none is the value shown as sent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from dashboard.lib.cache_state import (
    PROCESSING_CONFIG_NAMES_STALE,
    processing_config_key,
    processing_config_names_key,
    processing_config_request_key,
)
from dashboard.lib.decision_points import decision_point_by_link
from dashboard.lib.pipelines import PipelineConfig

# A stored configuration older than this is fetched again when its page is opened.
PROCESSING_CONFIG_MAX_AGE = timedelta(minutes=5)


@dataclass(frozen=True)
class ConfigDecision:
    applies_to: str
    value: str
    # The decision's group, when Lookout knows the decision point ("" otherwise).
    group: str
    question: str
    answer: str
    # The XML's own comment, as written (None when it has none).
    label: str | None


@dataclass(frozen=True)
class StoredConfig:
    pipeline: str
    name: str
    xml: str | None
    decisions: tuple[ConfigDecision, ...]
    # The service does not have this name.
    missing: bool
    error: str
    fetched_at: datetime
    listed_at: datetime | None
    refreshing: bool
    age: timedelta

    @property
    def fetched(self) -> bool:
        return self.xml is not None

    @property
    def stale(self) -> bool:
        return self.age > PROCESSING_CONFIG_MAX_AGE


def _split_label(label: str | None) -> tuple[str, str]:
    """ "Question: answer" labels (as the built-in files write them) into their parts."""
    if not label:
        return "", ""
    question, sep, answer = label.rpartition(": ")
    return (question.strip(), answer.strip()) if sep else ("", label.strip())


def decision_in_words(*, applies_to: str, value: str, label: str | None) -> ConfigDecision:
    point = decision_point_by_link(applies_to)
    label_question, label_answer = _split_label(label)
    question = point.job if point is not None else label_question or f"Decision {applies_to}"
    known = point.choice_label(value) if point is not None else None
    answer = known or label_answer or value
    return ConfigDecision(
        applies_to=applies_to,
        value=value,
        group=point.group if point is not None else "",
        question=question,
        answer=answer,
        label=label,
    )


def decisions_in_words(choices: Sequence[Mapping[str, Any]]) -> tuple[ConfigDecision, ...]:
    return tuple(
        decision_in_words(
            applies_to=choice["applies_to"], value=choice["go_to_chain"], label=choice["label"]
        )
        for choice in choices
    )


def processing_config_get(
    *, pipeline: str, name: str, now: datetime | None = None
) -> StoredConfig | None:
    """The stored configuration with its age, or None when none is stored yet."""
    key = processing_config_key(pipeline, name)
    request_key = processing_config_request_key(pipeline, name)
    found = cache.get_many([key, request_key])
    stored = found.get(key)
    if stored is None:
        return None
    return StoredConfig(
        pipeline=pipeline,
        name=name,
        xml=stored.get("xml"),
        decisions=decisions_in_words(stored.get("choices") or []),
        missing=bool(stored.get("missing")),
        error=stored.get("error", ""),
        fetched_at=stored["fetched_at"],
        listed_at=stored.get("listed_at"),
        refreshing=request_key in found,
        age=(now or timezone.now()) - stored["fetched_at"],
    )


@dataclass(frozen=True)
class DecisionDifference:
    applies_to: str
    group: str
    question: str
    # None: that configuration does not answer it (the question is asked at run time).
    first: str | None
    second: str | None
    # The values as the XML holds them: two values can share words.
    first_value: str | None
    second_value: str | None

    @property
    def differs(self) -> bool:
        return self.first_value != self.second_value


def processing_config_compare(
    first: StoredConfig, second: StoredConfig
) -> list[DecisionDifference]:
    """Every decision either configuration answers, in the first's order, then the second's."""
    one = {d.applies_to: d for d in first.decisions}
    two = {d.applies_to: d for d in second.decisions}
    order = list(one) + [link for link in two if link not in one]
    rows = []
    for link in order:
        shown = one.get(link) or two[link]
        rows.append(
            DecisionDifference(
                applies_to=link,
                group=shown.group,
                question=shown.question,
                first=one[link].answer if link in one else None,
                second=two[link].answer if link in two else None,
                first_value=one[link].value if link in one else None,
                second_value=two[link].value if link in two else None,
            )
        )
    return rows


def processing_config_names_stale(*, pipeline: str) -> bool:
    """No listing stored, or one older than PROCESSING_CONFIG_NAMES_STALE."""
    stored = cache.get(processing_config_names_key(pipeline))
    if not stored or stored.get("fetched_at") is None:
        return True
    age: float = (timezone.now() - stored["fetched_at"]).total_seconds()
    return age > PROCESSING_CONFIG_NAMES_STALE


def processing_config_names(*, pipeline: PipelineConfig) -> tuple[str, ...]:
    """The names the pipeline's service listed, or the configured ones when it listed none
    (not yet fetched, an older service that cannot list them, or an empty list)."""
    stored = cache.get(processing_config_names_key(pipeline.slug)) or {}
    names = stored.get("names")
    return tuple(names) if names else pipeline.processing_configs
