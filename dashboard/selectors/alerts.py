"""Reads for the alerts pages, the overview and the wall: alerts, rules and channels."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from django.db.models import Count, Max, Q, QuerySet
from django.utils import timezone
from django_stubs_ext import StrOrPromise

from dashboard.models import Alert, AlertChannel, AlertKind, AlertMessage, AlertRule

ALERT_STATES = ("open", "silenced", "resolved")


def _not_silenced(now: datetime) -> Q:
    return Q(silenced_until__isnull=True) | Q(silenced_until__lte=now)


def alert_list(
    *,
    state: str = "",
    kind: str = "",
    pipeline: str = "",
    baseline: str = "",
    now: datetime | None = None,
) -> QuerySet[Alert]:
    """Alerts newest first; `state` is open (not silenced), silenced or resolved."""
    now = now or timezone.now()
    alerts = Alert.objects.select_related("rule").annotate(member_count=Count("members"))
    if state == "open":
        alerts = alerts.filter(_not_silenced(now), state=Alert.State.OPEN)
    elif state == "silenced":
        alerts = alerts.filter(state=Alert.State.OPEN, silenced_until__gt=now)
    elif state == "resolved":
        alerts = alerts.filter(state=Alert.State.RESOLVED)
    if kind:
        alerts = alerts.filter(kind=kind)
    if pipeline:
        alerts = alerts.filter(pipeline=pipeline)
    if baseline == "new":
        alerts = alerts.filter(baseline=False)
    elif baseline == "baseline":
        alerts = alerts.filter(baseline=True)
    return alerts.order_by("-opened_at", "-id")


@dataclass(frozen=True)
class AlertDetail:
    alert: Alert
    members: list[Alert]
    messages: list[AlertMessage]


def alert_detail_get(*, alert_id: int) -> AlertDetail | None:
    alert = Alert.objects.select_related("rule", "group_leader").filter(pk=alert_id).first()
    if alert is None:
        return None
    return AlertDetail(
        alert=alert,
        members=list(alert.members.order_by("opened_at", "id")),
        messages=list(alert.messages.select_related("channel").order_by("created_at", "id")),
    )


@dataclass(frozen=True)
class OpenAlerts:
    """What the overview and the wall show: open, unsilenced, announced alerts."""

    count: int
    latest: list[Alert]
    # Open conditions that were there before Lookout first looked (not sent).
    baseline_count: int


def open_alerts_get(*, limit: int = 5, now: datetime | None = None) -> OpenAlerts:
    now = now or timezone.now()
    live = Alert.objects.filter(_not_silenced(now), state=Alert.State.OPEN)
    new = live.filter(baseline=False, group_leader__isnull=True)
    return OpenAlerts(
        count=new.count(),
        latest=list(new.order_by("-opened_at", "-id")[:limit]),
        baseline_count=live.filter(baseline=True).count(),
    )


@dataclass(frozen=True)
class AlertSettings:
    rules: list[AlertRule]
    channels: list[AlertChannel]


def alert_settings_get() -> AlertSettings:
    return AlertSettings(
        rules=list(AlertRule.objects.prefetch_related("channels").order_by("kind", "pipeline")),
        channels=list(
            AlertChannel.objects.prefetch_related("rules")
            .annotate(
                # The "last sent" of the daily digest.
                last_digest_day=Max(
                    "messages__digest_day", filter=Q(messages__sent_at__isnull=False)
                )
            )
            .order_by("id")
        ),
    )


def alert_kind_choices() -> list[tuple[str, StrOrPromise]]:
    return list(AlertKind.choices)
