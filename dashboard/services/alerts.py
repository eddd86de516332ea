"""Writes for alerts: default rules, evaluation after each poll, daily digests, the outbox
and its delivery, channels, silencing.

The model is healthchecks' Check/Flip/Channel: a condition seen by a rule opens one
`Alert` per (rule, subject) (a partial unique constraint holds it), and clears it when
the condition is gone. Each message to a channel is an `AlertMessage` row, created at
most once per (alert, channel, kind) and sent by `outbox_deliver_due`, which claims a row
with a conditional UPDATE before sending and records the outcome under the same claim.
A claim is a lease twice as long as the sending task's hard time limit, so it runs out
only when its sender is surely dead. A worker stopped (SIGTERM) finishes its send and
records it: nothing is sent twice. A worker killed mid-send (SIGKILL, a crash) leaves the
claim to run out; the row is then sent again, with the same message id, because the
receiver may or may not have taken it: at least once, and a repeat only of the one
message that was in flight.

What is already true the first time a rule looks at a scope (a pipeline, the services,
storage, fixity) is recorded as baseline: shown on the alerts page, never sent.
"""

from __future__ import annotations

import json
import logging
import secrets
import time
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser, User
from django.core import signing
from django.core.exceptions import ValidationError
from django.core.validators import URLValidator, validate_email
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.urls import NoReverseMatch, reverse
from django.utils import timezone, translation
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext as _

from dashboard.clients import apprise_notify, notify
from dashboard.lib import alert_words, dashboard_source, page_cache, vocabulary
from dashboard.lib.pipelines import pipeline_list
from dashboard.models import (
    Alert,
    AlertChannel,
    AlertKind,
    AlertMessage,
    AlertRule,
    AuditEntry,
    FixityCheck,
    IngestItem,
    IngestRun,
    ServicePoll,
    TimesFrom,
    Unit,
)
from dashboard.selectors import ingest as ingest_selectors
from dashboard.selectors import storage as storage_selectors
from dashboard.selectors.digest import digest_contents
from dashboard.selectors.freshness import service_health_list

log = logging.getLogger(__name__)

# Thresholds of the rules made at first start, in each kind's own unit.
DEFAULT_THRESHOLDS: dict[str, int] = {
    AlertKind.UNIT_FAILED: 5,  # minutes: failures at one job within this are one message
    AlertKind.UNIT_WAITING: 24,  # hours
    AlertKind.UNIT_STUCK: 6,  # hours
    AlertKind.SERVICE_STALE: 3,  # poll intervals
    AlertKind.STORAGE_FULL: 90,  # percent
    AlertKind.FIXITY_FAILED: 0,
    AlertKind.INGEST_FINISHED: 0,
    AlertKind.INGEST_STALLED: 6,  # hours without a finished item while items are queued
}
# Added after the first defaults: made once on an install that has the others already.
LATER_DEFAULTS = (AlertKind.INGEST_FINISHED, AlertKind.INGEST_STALLED)
# A finished run is announced once; the alert closes quietly after this.
INGEST_FINISHED_KEPT = timedelta(days=7)
# Kinds whose clearing is news worth a message ("recovered", "decided", "moving again").
# A failed unit clears only when someone hides it: the page says so, nobody is told.
SENDS_RESOLVED = frozenset(
    {
        AlertKind.UNIT_WAITING,
        AlertKind.UNIT_STUCK,
        AlertKind.SERVICE_STALE,
        AlertKind.STORAGE_FULL,
        AlertKind.FIXITY_FAILED,
        AlertKind.INGEST_STALLED,
    }
)
# How long a failure waits for the jobs refresh to name the job that failed.
FAILED_JOB_PATIENCE = timedelta(minutes=3)
UNIT_KINDS = frozenset({AlertKind.UNIT_FAILED, AlertKind.UNIT_WAITING, AlertKind.UNIT_STUCK})

# Delivery: see `delivery_limits`.
BACKOFF_FIRST = timedelta(seconds=30)
BACKOFF_MAX = timedelta(hours=1)
MAX_ATTEMPTS = 10
DELIVER_BATCH = 100
# Silence links in messages work this long.
SILENCE_LINK_MAX_AGE = 14 * 24 * 3600
SILENCE_SALT = "lookout.alert-silence"
SILENCE_CHOICES_HOURS = (1, 4, 24, 24 * 7)

Actor = User | AnonymousUser


class AlertError(Exception):
    """A channel, rule or silence request was refused; the message says why."""


# --------------------------------------------------------------------------- rules


def alert_rules_ensure_defaults() -> None:
    """The default rules (every pipeline), made once; admins change them afterwards."""
    if AlertRule.objects.filter(is_default=True).exists():
        for later in LATER_DEFAULTS:
            if not AlertRule.objects.filter(kind=later).exists():
                added = AlertRule.objects.create(
                    kind=later, pipeline="", threshold=DEFAULT_THRESHOLDS[later], is_default=True
                )
                # As a new channel receives the default rules, a new default rule
                # reaches the channels there are.
                added.channels.set(AlertChannel.objects.all())
        return
    for kind, threshold in DEFAULT_THRESHOLDS.items():
        AlertRule.objects.get_or_create(
            kind=kind,
            pipeline="",
            defaults={"threshold": threshold, "is_default": True, "enabled": True},
        )


def _audit(
    *,
    action: str,
    target_kind: str,
    target: str,
    label: str,
    actor: Actor | None,
    actor_name: str,
    parameters: dict[str, Any] | None = None,
    now: datetime | None = None,
) -> None:
    now = now or timezone.now()
    if not actor_name:
        actor_name = actor.get_username() if actor is not None and actor.is_authenticated else ""
    AuditEntry.objects.create(
        idempotency_key=uuid.uuid4().hex,
        actor=actor if actor is not None and actor.is_authenticated else None,
        actor_name=(actor_name or "unknown")[:150],
        action=action,
        target_kind=target_kind,
        target=target[:255],
        target_label=label[:255],
        parameters=parameters or {},
        requested_at=now,
        finished_at=now,
        outcome=AuditEntry.Outcome.DONE,
    )


def alert_rule_update(
    *,
    rule_id: int,
    enabled: bool,
    threshold: int,
    actor: Actor | None = None,
    actor_name: str = "",
) -> AlertRule:
    rule = AlertRule.objects.filter(pk=rule_id).first()
    if rule is None:
        raise AlertError(_("There is no alert rule with id %(rule_id)s.") % {"rule_id": rule_id})
    if threshold < 0 or (rule.kind == AlertKind.STORAGE_FULL and not 1 <= threshold <= 100):
        raise AlertError(_("A fill threshold is a percentage from 1 to 100."))
    at_least_one = {
        AlertKind.UNIT_WAITING,
        AlertKind.UNIT_STUCK,
        AlertKind.SERVICE_STALE,
        AlertKind.INGEST_STALLED,
    }
    if rule.kind in at_least_one and threshold < 1:
        raise AlertError(_("This threshold must be at least 1."))
    _change_audited(
        rule,
        {"enabled": enabled, "threshold": threshold},
        action="alert_rule_change",
        target_kind="alert_rule",
        actor=actor,
        actor_name=actor_name,
    )
    return rule


def _change_audited(
    row: AlertRule | AlertChannel,
    changes: dict[str, Any],
    *,
    action: str,
    target_kind: str,
    actor: Actor | None,
    actor_name: str,
) -> None:
    """Save `changes` to a row and audit them, before and after, in one transaction."""
    before = {name: getattr(row, name) for name in changes}
    with transaction.atomic():
        for name, value in changes.items():
            setattr(row, name, value)
        row.save(update_fields=list(changes))
        _audit(
            action=action,
            target_kind=target_kind,
            target=str(row.pk),
            label=str(row),
            actor=actor,
            actor_name=actor_name,
            parameters={"before": before, "after": changes},
        )


def alert_rule_add(
    *, kind: str, pipeline: str, threshold: int, actor: Actor | None = None, actor_name: str = ""
) -> AlertRule:
    """A rule for one pipeline (or all), sending to every channel there is."""
    if kind not in AlertKind.values:
        raise AlertError(_("There is no rule kind “%(kind)s”.") % {"kind": kind})
    if pipeline and pipeline not in {p.slug for p in pipeline_list()}:
        raise AlertError(_("There is no pipeline “%(pipeline)s”.") % {"pipeline": pipeline})
    if AlertRule.objects.filter(kind=kind, pipeline=pipeline).exists():
        raise AlertError(_("That rule exists already; change its threshold instead."))
    try:
        with transaction.atomic():
            rule = AlertRule.objects.create(kind=kind, pipeline=pipeline, threshold=threshold)
            rule.channels.set(AlertChannel.objects.all())
            _audit(
                action="alert_rule_add",
                target_kind="alert_rule",
                target=str(rule.pk),
                label=str(rule),
                actor=actor,
                actor_name=actor_name,
                parameters={"threshold": threshold},
            )
    except IntegrityError:
        raise AlertError(_("That rule exists already; change its threshold instead.")) from None
    return rule


# --------------------------------------------------------------------------- channels


@dataclass(frozen=True)
class AddedChannel:
    channel: AlertChannel
    # The webhook signing secret: shown once, when the channel is made.
    secret: str


@dataclass(frozen=True)
class ChannelTarget:
    # What is shown (an Apprise URL with its secrets masked) and what is kept to send with.
    shown: str
    secret: str = ""


def _validate_target(kind: str, target: str) -> ChannelTarget:
    target = target.strip()
    if kind == AlertChannel.Kind.APPRISE:
        longest = AlertChannel._meta.get_field("secret").max_length or 2000
        if len(target) > longest:
            raise AlertError(_("An Apprise URL is at most %(n)d characters.") % {"n": longest})
        try:
            found = apprise_notify.apprise_url_check(target)
        except apprise_notify.AppriseUrlError as exc:
            raise AlertError(
                _("Not an Apprise URL Lookout can use: %(why)s") % {"why": exc}
            ) from None
        shown_max = AlertChannel._meta.get_field("target").max_length or 500
        return ChannelTarget(shown=found.masked[:shown_max], secret=target)
    try:
        if kind == AlertChannel.Kind.EMAIL:
            validate_email(target)
        elif kind in {AlertChannel.Kind.WEBHOOK, AlertChannel.Kind.SLACK}:
            URLValidator(schemes=["http", "https"])(target)
        else:
            raise AlertError(
                gettext("A channel is email, webhook, slack or apprise, not “%(kind)s”.")
                % {"kind": kind}
            )
    except ValidationError:
        text = (
            gettext("“%(target)s” is not an e-mail address.")
            if kind == AlertChannel.Kind.EMAIL
            else gettext("“%(target)s” is not an http(s) URL.")
        )
        raise AlertError(text % {"target": target}) from None
    if kind == AlertChannel.Kind.WEBHOOK:
        return ChannelTarget(shown=target, secret=secrets.token_hex(32))
    return ChannelTarget(shown=target)


def _validate_language(language: str | None) -> str:
    """A code of LANGUAGES (the site's own when none is given)."""
    language = language or settings.LANGUAGE_CODE
    if language not in dict(settings.LANGUAGES):
        codes = ", ".join(code for code, _name in settings.LANGUAGES)
        raise AlertError(
            gettext("%(language)s is not one of Lookout's languages (%(codes)s).")
            % {"language": language, "codes": codes}
        )
    return language


def alert_channel_add(
    *,
    kind: str,
    target: str,
    language: str | None = None,
    actor: Actor | None = None,
    actor_name: str = "",
) -> AddedChannel:
    """Make a channel and subscribe it to every default rule, so it needs no other step.

    Its messages are written in `language` (the site's own by default)."""
    checked = _validate_target(kind, target)
    language = _validate_language(language)
    alert_rules_ensure_defaults()
    with transaction.atomic():
        channel = AlertChannel.objects.create(
            kind=kind,
            target=checked.shown,
            secret=checked.secret,
            language=language,
            created_by=actor_name[:150],
        )
        for rule in AlertRule.objects.filter(is_default=True):
            rule.channels.add(channel)
        _audit(
            action="alert_channel_add",
            target_kind="alert_channel",
            target=str(channel.pk),
            label=str(channel),
            actor=actor,
            actor_name=actor_name,
        )
    # Only a webhook's signing secret is shown back; an Apprise URL never is.
    shown_once = checked.secret if kind == AlertChannel.Kind.WEBHOOK else ""
    return AddedChannel(channel=channel, secret=shown_once)


def alert_channel_remove(
    *, channel_id: int, actor: Actor | None = None, actor_name: str = ""
) -> AlertChannel:
    with transaction.atomic():
        channel = AlertChannel.objects.select_for_update().filter(pk=channel_id).first()
        if channel is None:
            raise AlertError(
                gettext("There is no alert channel with id %(id)s.") % {"id": channel_id}
            )
        label = str(channel)
        _audit(
            action="alert_channel_remove",
            target_kind="alert_channel",
            target=str(channel_id),
            label=label,
            actor=actor,
            actor_name=actor_name,
        )
        channel.delete()
    return channel


@dataclass(frozen=True)
class TestOutcome:
    delivered: bool
    error: str


def alert_channel_test(
    *, channel_id: int, actor: Actor | None = None, actor_name: str = ""
) -> TestOutcome:
    """Send a test message now, through the outbox like any other, and say how it went."""
    channel = AlertChannel.objects.filter(pk=channel_id).first()
    if channel is None:
        raise AlertError(gettext("There is no alert channel with id %(id)s.") % {"id": channel_id})
    now = timezone.now()
    message = AlertMessage.objects.create(
        alert=None,
        channel=channel,
        kind=AlertMessage.Kind.TEST,
        created_at=now,
        next_attempt_at=now,
    )
    _audit(
        action="alert_channel_test",
        target_kind="alert_channel",
        target=str(channel.pk),
        label=str(channel),
        actor=actor,
        actor_name=actor_name,
    )
    message_deliver(message_id=message.pk, now=now)
    message.refresh_from_db()
    if message.sent_at is None:
        # One try is the answer; no retries of a test behind the user's back.
        AlertMessage.objects.filter(pk=message.pk, sent_at__isnull=True).update(gave_up_at=now)
    return TestOutcome(delivered=message.sent_at is not None, error=message.last_error)


# --------------------------------------------------------------------------- evaluation


@dataclass(frozen=True)
class Condition:
    """One thing a rule found true right now; `words` say it in any language."""

    subject: str
    words: dict[str, Any]
    opened_at: datetime
    link: str = ""
    pipeline: str = ""
    group_key: str = ""

    @property
    def text(self) -> tuple[str, str]:
        """(title, detail) in the active language."""
        return alert_words.alert_text(self.words) or ("", "")


@dataclass
class EvaluationSummary:
    opened: int = 0
    baseline: int = 0
    resolved: int = 0
    messages: int = 0
    digests: int = 0
    notes: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (
            f"alerts: {self.opened} opened ({self.baseline} baseline), "
            f"{self.resolved} resolved, {self.messages} messages queued"
        ) + (f", {self.digests} daily digests queued" if self.digests else "")


def _when(moment: datetime | None) -> str:
    return vocabulary.moment(moment)


def _unit_link(uuid_: str) -> str:
    return reverse("dashboard:unit-detail", kwargs={"uuid": uuid_})


def _unit_words(what: str, row: dict[str, Any], **facts: Any) -> dict[str, Any]:
    return {"what": what, "unit_kind": row["kind"], "name": row["name"] or row["uuid"], **facts}


def _pipelines_for(rule: AlertRule) -> list[str]:
    slugs = [p.slug for p in pipeline_list()]
    return [rule.pipeline] if rule.pipeline in slugs else ([] if rule.pipeline else slugs)


def _polled_pipelines() -> set[str]:
    """Pipelines with at least one successful poll: only there do units say anything."""
    return {
        service.removeprefix("workflow:")
        for service in ServicePoll.objects.filter(
            service__startswith="workflow:", last_success_at__isnull=False
        ).values_list("service", flat=True)
    }


UNIT_FIELDS = (
    "uuid",
    "name",
    "kind",
    "pipeline",
    "microservice",
    "failed_job",
    "failed_at",
    "failed_at_from",
    "updated_at",
    "waiting_since",
    "waiting_since_from",
    "status_since",
    "decision",
)


def _unit_conditions(rule: AlertRule, slug: str, now: datetime) -> list[Condition]:
    units = Unit.objects.filter(pipeline=slug, hidden=False)
    threshold = rule.threshold
    found = []
    if rule.kind == AlertKind.UNIT_FAILED:
        for row in units.filter(status="FAILED").values(*UNIT_FIELDS).iterator():
            # The failed job and its time come with the jobs refresh that follows the
            # poll (the status shows the clean-up step): wait for it, a few minutes at most.
            if not row["failed_job"] and now - row["updated_at"] < FAILED_JOB_PATIENCE:
                continue
            job = row["failed_job"] or row["microservice"] or ""
            at = row["failed_at"] or row["updated_at"]
            observed = row["failed_at_from"] == TimesFrom.OBSERVED or row["failed_at"] is None
            found.append(
                Condition(
                    subject=f"unit:{slug}:{row['uuid']}",
                    words=_unit_words(
                        alert_words.UNIT_FAILED,
                        row,
                        job=job,
                        at=at.isoformat(),
                        observed=observed,
                    ),
                    link=_unit_link(row["uuid"]),
                    pipeline=slug,
                    opened_at=at,
                    group_key=f"{slug}:{job}",
                )
            )
    elif rule.kind == AlertKind.UNIT_WAITING:
        limit = timedelta(hours=threshold)
        waiting = units.filter(awaiting_decision=True, waiting_since__lt=now - limit)
        for row in waiting.values(*UNIT_FIELDS).iterator():
            since = row["waiting_since"]
            found.append(
                Condition(
                    subject=f"unit:{slug}:{row['uuid']}",
                    words=_unit_words(
                        alert_words.UNIT_WAITING,
                        row,
                        seconds=(now - since).total_seconds(),
                        at_least=row["waiting_since_from"] == TimesFrom.OBSERVED,
                        since=since.isoformat(),
                        decision=row["decision"] or "",
                    ),
                    link=_unit_link(row["uuid"]),
                    pipeline=slug,
                    opened_at=since + limit,
                )
            )
    elif rule.kind == AlertKind.UNIT_STUCK:
        limit = timedelta(hours=threshold)
        stuck = units.filter(
            status="PROCESSING", awaiting_decision=False, status_since__lt=now - limit
        )
        for row in stuck.values(*UNIT_FIELDS).iterator():
            since = row["status_since"]
            found.append(
                Condition(
                    subject=f"unit:{slug}:{row['uuid']}",
                    words=_unit_words(
                        alert_words.UNIT_STUCK,
                        row,
                        seconds=(now - since).total_seconds(),
                        microservice=row["microservice"] or "",
                        since=since.isoformat(),
                    ),
                    link=_unit_link(row["uuid"]),
                    pipeline=slug,
                    opened_at=since + limit,
                )
            )
    return found


def _service_conditions(rule: AlertRule, now: datetime) -> list[Condition]:
    names = {p.slug: p.name for p in pipeline_list()}
    slugs = _pipelines_for(rule)
    wanted = {f"workflow:{slug}" for slug in slugs}
    wanted |= {dashboard_source.dashboard_service(slug) for slug in slugs}
    if not rule.pipeline:
        wanted.add("storage")
    found = []
    for health in service_health_list(now=now):
        if health.service not in wanted or health.last_attempt_at is None:
            continue  # never tried: nothing to say yet
        pipeline = health.service.partition(":")[2] if ":" in health.service else ""
        if health.refused:
            # Not a matter of missed intervals: the account will not work until someone
            # fixes it, so it is said at once (the API polling goes on meanwhile).
            name = names.get(pipeline, pipeline)
            found.append(
                Condition(
                    subject=f"account:{health.service}",
                    words={
                        "what": alert_words.ACCOUNT_REFUSED,
                        "pipeline_name": name,
                        "error": health.last_error or "",
                    },
                    link=reverse("dashboard:home"),
                    pipeline=pipeline,
                    opened_at=health.last_attempt_at,
                )
            )
            continue
        limit = timedelta(seconds=rule.threshold * health.interval_seconds)
        if health.last_success_at is not None:
            if now - health.last_success_at <= limit:
                continue
            opened = health.last_success_at + limit
        else:
            opened = health.last_attempt_at
        found.append(
            Condition(
                subject=f"service:{health.service}",
                words={
                    "what": alert_words.SERVICE_STALE,
                    "service": health.service,
                    "pipeline_name": names.get(health.service.partition(":")[2], ""),
                    "last_success": health.last_success_at.isoformat()
                    if health.last_success_at
                    else None,
                    "error": health.last_error or "",
                },
                link=reverse("dashboard:home"),
                pipeline=pipeline,
                opened_at=opened,
            )
        )
    return found


def _as_int(value: Any) -> int | None:
    try:
        return int(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _storage_conditions(rule: AlertRule, summary: dict[str, Any]) -> list[Condition]:
    fetched_at = summary.get("fetched_at") or timezone.now()
    stores: list[tuple[str, dict[str, Any], int | None, int | None]] = []
    for space in summary.get("spaces") or ():
        name = str(space.get("path") or space.get("uuid", ""))
        stores.append(
            (
                f"space:{space.get('uuid')}",
                {"store": "space", "name": name},
                _as_int(space.get("used")),
                _as_int(space.get("size")),
            )
        )
    for location in summary.get("locations") or ():
        if location.get("enabled") is False:
            continue
        name = str(
            location.get("description") or location.get("relative_path") or location.get("uuid")
        )
        stores.append(
            (
                f"location:{location.get('uuid')}",
                {"store": "location", "name": name, "purpose": str(location.get("purpose") or "")},
                _as_int(location.get("used")),
                _as_int(location.get("quota")),
            )
        )
    found = []
    for subject, store, used, limit in stores:
        if not limit or used is None or 100 * used < rule.threshold * limit:
            continue
        found.append(
            Condition(
                subject=subject,
                words={"what": alert_words.STORAGE_FULL, **store, "used": used, "limit": limit},
                link=reverse("dashboard:storage-overview"),
                opened_at=fetched_at,
            )
        )
    return found


def _fixity_conditions() -> list[Condition]:
    latest: dict[str, FixityCheck] = {}
    decided = FixityCheck.objects.filter(success__isnull=False, checked_at__isnull=False)
    for check in decided.order_by("package_uuid", "-checked_at", "-id").iterator():
        latest.setdefault(str(check.package_uuid), check)
    found = []
    for package, check in latest.items():
        if check.success or check.checked_at is None:
            continue
        found.append(
            Condition(
                subject=f"fixity:{package}",
                words={
                    "what": alert_words.FIXITY_FAILED,
                    "package": package,
                    "message": (check.message or "")[:500],
                },
                link=reverse("dashboard:storage-package-detail", kwargs={"uuid": package}),
                opened_at=check.checked_at,
            )
        )
    return found


def _run_link(run_id: int) -> str:
    try:
        return reverse("dashboard:ingest-run-detail", kwargs={"run_id": run_id})
    except NoReverseMatch:  # the run page is not installed: its API answer then
        return reverse("api:ingest-run-detail", kwargs={"run_id": run_id})


def _ingest_conditions(rule: AlertRule, now: datetime) -> list[Condition]:
    """Runs that finished lately (one summary each), or runs with items queued and no
    item finished for `threshold` hours."""

    def watched(runs: Iterable[IngestRun]) -> list[IngestRun]:
        return [run for run in runs if not rule.pipeline or rule.pipeline in run.pipelines]

    runs = IngestRun.objects.all()
    found = []
    if rule.kind == AlertKind.INGEST_FINISHED:
        ended = runs.filter(finished_at__gte=now - INGEST_FINISHED_KEPT).order_by("finished_at")
        for run in watched(ended):
            counts = ingest_selectors.item_counts(run)
            found.append(
                Condition(
                    subject=f"ingest-run:{run.pk}:finished",
                    words={
                        "what": alert_words.INGEST_FINISHED,
                        "name": run.name,
                        "cancelled": run.status == IngestRun.Status.CANCELLED,
                        "stored": counts["stored"],
                        "failed": counts["failed"],
                        "skipped": counts["skipped"],
                        "items": sum(counts.values()),
                        "path": run.path_shown or "/",
                    },
                    link=_run_link(run.pk),
                    opened_at=run.finished_at or now,
                )
            )
        return found
    quiet_for = timedelta(hours=rule.threshold)
    active = runs.filter(status=IngestRun.Status.RUNNING, items__state=IngestItem.State.QUEUED)
    for run in watched(active.distinct()):
        last = run.last_progress_at or run.started_at or run.created_at
        if now - last < quiet_for:
            continue
        found.append(
            Condition(
                subject=f"ingest-run:{run.pk}:stalled",
                words={
                    "what": alert_words.INGEST_STALLED,
                    "name": run.name,
                    "hours": rule.threshold,
                    # Why each pipeline receives nothing, as the scheduler wrote it.
                    "waits": dict(run.waits or {}),
                },
                link=_run_link(run.pk),
                opened_at=last + quiet_for,
            )
        )
    return found


def _conditions_by_scope(rule: AlertRule, now: datetime) -> dict[str, list[Condition]]:
    """The scopes this rule can look at now (polled at least once), with what it sees."""
    if rule.kind in UNIT_KINDS:
        polled = _polled_pipelines()
        return {
            f"workflow:{slug}": _unit_conditions(rule, slug, now)
            for slug in _pipelines_for(rule)
            if slug in polled
        }
    if rule.kind == AlertKind.SERVICE_STALE:
        return {"services": _service_conditions(rule, now)}
    if rule.kind == AlertKind.STORAGE_FULL:
        summary = storage_selectors.storage_summary()
        return {"storage": _storage_conditions(rule, summary)} if summary else {}
    if rule.kind == AlertKind.FIXITY_FAILED:
        return {"fixity": _fixity_conditions()}
    if rule.kind in (AlertKind.INGEST_FINISHED, AlertKind.INGEST_STALLED):
        return {"ingest": _ingest_conditions(rule, now)}
    return {}


def _channels_of(rule: AlertRule) -> list[AlertChannel]:
    return list(rule.channels.filter(enabled=True))


def _queue(alert: Alert, channels: Iterable[AlertChannel], kind: str, now: datetime) -> int:
    rows = [
        AlertMessage(alert=alert, channel=channel, kind=kind, created_at=now, next_attempt_at=now)
        for channel in channels
    ]
    # The unique constraint makes a second evaluation of the same event a no-op.
    AlertMessage.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _group_leader(rule: AlertRule, condition: Condition) -> Alert | None:
    """An announced failure at the same job within the window, whose message is still
    unsent: the new failure joins its message instead of making another."""
    if rule.kind != AlertKind.UNIT_FAILED or not condition.group_key:
        return None
    window = timedelta(minutes=rule.threshold)
    leader = (
        Alert.objects.filter(
            rule=rule,
            state=Alert.State.OPEN,
            group_key=condition.group_key,
            group_leader__isnull=True,
            baseline=False,
            opened_at__gte=condition.opened_at - window,
            opened_at__lte=condition.opened_at + window,
        )
        .order_by("opened_at", "id")
        .first()
    )
    if leader is None:
        return None
    if leader.messages.filter(sent_at__isnull=False).exists():
        return None
    return leader


def _open(
    rule: AlertRule,
    scope: str,
    condition: Condition,
    *,
    baseline: bool,
    now: datetime,
    summary: EvaluationSummary,
) -> None:
    leader = None if baseline else _group_leader(rule, condition)
    title, detail = condition.text
    alert = Alert(
        rule=rule,
        kind=rule.kind,
        subject=condition.subject,
        scope=scope,
        pipeline=condition.pipeline,
        title=title[:300],
        detail=detail,
        words=condition.words,
        link=condition.link,
        group_key=condition.group_key,
        group_leader=leader,
        opened_at=condition.opened_at,
        seen_at=now,
        baseline=baseline,
    )
    try:
        with transaction.atomic():
            alert.save()
            if not baseline and leader is None:
                summary.messages += _queue(alert, _channels_of(rule), AlertMessage.Kind.FIRED, now)
    except IntegrityError:
        return  # another evaluation opened it a moment ago
    summary.opened += 1
    summary.baseline += int(baseline)


def _resolve(alert: Alert, *, now: datetime, summary: EvaluationSummary) -> None:
    # Conditional: only the evaluation that moves it from open sends "resolved".
    if not Alert.objects.filter(pk=alert.pk, state=Alert.State.OPEN).update(
        state=Alert.State.RESOLVED, resolved_at=now
    ):
        return
    page_cache.bump()
    summary.resolved += 1
    if alert.kind not in SENDS_RESOLVED or alert.baseline or alert.silenced(now):
        return
    # Resolved goes to the channels that were told it fired.
    told = AlertChannel.objects.filter(
        messages__alert=alert, messages__kind=AlertMessage.Kind.FIRED, enabled=True
    ).distinct()
    summary.messages += _queue(alert, told, AlertMessage.Kind.RESOLVED, now)


def _evaluate_scope(
    rule: AlertRule,
    scope: str,
    conditions: list[Condition],
    *,
    now: datetime,
    summary: EvaluationSummary,
) -> None:
    first = scope not in rule.baselines
    if first:
        rule.baselines[scope] = now.isoformat()
        rule.save(update_fields=["baselines"])
    baseline_at = datetime.fromisoformat(rule.baselines[scope])
    current = {c.subject: c for c in conditions}
    open_alerts = {
        a.subject: a for a in Alert.objects.filter(rule=rule, scope=scope, state=Alert.State.OPEN)
    }
    for condition in sorted(current.values(), key=lambda c: c.opened_at):
        if condition.subject in open_alerts:
            continue
        # Already true before the rule first looked here (a backfilled old failure too).
        baseline = first or condition.opened_at < baseline_at
        _open(rule, scope, condition, baseline=baseline, now=now, summary=summary)
    for subject, alert in open_alerts.items():
        if subject not in current:
            _resolve(alert, now=now, summary=summary)


def alerts_evaluate(*, now: datetime | None = None) -> EvaluationSummary:
    """Evaluate every enabled rule against what the pollers stored; run after each poll."""
    now = now or timezone.now()
    alert_rules_ensure_defaults()
    summary = EvaluationSummary()
    for rule in AlertRule.objects.filter(enabled=True):
        for scope, conditions in _conditions_by_scope(rule, now).items():
            _evaluate_scope(rule, scope, conditions, now=now, summary=summary)
    # A disabled rule's open alerts are closed quietly: nobody watches them any more.
    if Alert.objects.filter(rule__enabled=False, state=Alert.State.OPEN).update(
        state=Alert.State.RESOLVED, resolved_at=now
    ):
        page_cache.bump()
    summary.digests = digests_queue(now=now)
    return summary


# --------------------------------------------------------------------------- digests


def digests_queue(*, now: datetime | None = None) -> int:
    """Queue today's digest for each opted-in channel whose hour (TIME_ZONE) has come.

    Checked with every evaluation, so no scheduler is needed. The outbox row is the record
    of the day: one per channel and day (a unique constraint), so a restart or a second
    evaluation never queues another, and a Lookout that was down at the hour sends it at
    its first poll after, the same day. A day with no poll after the hour has no digest.
    """
    now = now or timezone.now()
    local = timezone.localtime(now)
    due = list(
        AlertChannel.objects.filter(
            enabled=True, digest_hour__isnull=False, digest_hour__lte=local.hour
        ).exclude(messages__digest_day=local.date())
    )
    if not due:
        return 0
    contents = digest_contents(now=now)
    rows = [
        AlertMessage(
            channel=channel,
            kind=AlertMessage.Kind.DIGEST,
            created_at=now,
            next_attempt_at=now,
            digest_day=local.date(),
            digest=contents,
        )
        for channel in due
    ]
    AlertMessage.objects.bulk_create(rows, ignore_conflicts=True)
    return len(rows)


def _channel_change(
    channel_id: int, changes: dict[str, Any], *, action: str, actor: Actor | None, actor_name: str
) -> AlertChannel:
    channel = AlertChannel.objects.filter(pk=channel_id).first()
    if channel is None:
        raise AlertError(gettext("There is no alert channel with id %(id)s.") % {"id": channel_id})
    _change_audited(
        channel,
        changes,
        action=action,
        target_kind="alert_channel",
        actor=actor,
        actor_name=actor_name,
    )
    return channel


def alert_channel_digest_set(
    *, channel_id: int, hour: int | None, actor: Actor | None = None, actor_name: str = ""
) -> AlertChannel:
    """Opt a channel in to a daily digest at `hour` (0-23, TIME_ZONE), or out with None."""
    if hour is not None and not 0 <= hour <= 23:
        raise AlertError(gettext("A digest hour is a whole hour from 0 to 23."))
    return _channel_change(
        channel_id,
        {"digest_hour": hour},
        action="alert_channel_digest",
        actor=actor,
        actor_name=actor_name,
    )


def alert_channel_language_set(
    *, channel_id: int, language: str, actor: Actor | None = None, actor_name: str = ""
) -> AlertChannel:
    """Write a channel's messages in `language` (a code of LANGUAGES) from now on."""
    return _channel_change(
        channel_id,
        {"language": _validate_language(language)},
        action="alert_channel_language",
        actor=actor,
        actor_name=actor_name,
    )


# --------------------------------------------------------------------------- silencing


class _SignerAt(signing.TimestampSigner):
    """A signer whose time is given: a message signs its link at its own creation, so a
    retried message is the same bytes and the link's age counts from the message."""

    def __init__(self, *, at: datetime, salt: str) -> None:
        super().__init__(salt=salt)
        self._at = at

    def timestamp(self) -> str:
        return signing.b62_encode(int(self._at.timestamp()))


def silence_token(*, alert_id: int, channel_id: int, signed_at: datetime | None = None) -> str:
    signer = _SignerAt(at=signed_at or timezone.now(), salt=SILENCE_SALT)
    return signer.sign_object({"a": alert_id, "c": channel_id}, compress=True)


def silence_token_read(token: str) -> tuple[int, int] | None:
    """(alert id, channel id) from a link in a message, or None if forged or too old."""
    try:
        data = signing.loads(token, salt=SILENCE_SALT, max_age=SILENCE_LINK_MAX_AGE)
        return int(data["a"]), int(data["c"])
    except (signing.BadSignature, KeyError, TypeError, ValueError):
        return None


def alert_silence(
    *,
    alert_id: int,
    hours: int,
    actor: Actor | None = None,
    actor_name: str = "",
    now: datetime | None = None,
) -> Alert:
    """Send nothing about this alert (and its group) for `hours`; 0 lifts a silence."""
    now = now or timezone.now()
    if hours < 0 or hours > 24 * 30:
        raise AlertError(gettext("Silence for 0 to 720 hours."))
    alert = Alert.objects.filter(pk=alert_id).first()
    if alert is None:
        raise AlertError(gettext("There is no alert with id %(id)s.") % {"id": alert_id})
    until = now + timedelta(hours=hours) if hours else None
    who = actor_name or (
        actor.get_username() if actor is not None and actor.is_authenticated else ""
    )
    with transaction.atomic():
        Alert.objects.filter(pk=alert.pk).update(silenced_until=until, silenced_by=who[:150])
        page_cache.bump()
        _audit(
            action="alert_silence" if hours else "alert_unsilence",
            target_kind="alert",
            target=str(alert.pk),
            label=alert.title,
            actor=actor,
            actor_name=who,
            parameters={"hours": hours},
            now=now,
        )
    alert.refresh_from_db()
    return alert


# --------------------------------------------------------------------------- delivery


def _absolute(path: str) -> str:
    base = str(getattr(settings, "LOOKOUT_PUBLIC_URL", "") or "http://127.0.0.1:8000")
    return base.rstrip("/") + path if path else ""


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    payload: dict[str, Any]


def _members(alert: Alert) -> list[Alert]:
    return list(alert.members.order_by("opened_at", "id"))


def _digest_render(message: AlertMessage, message_id: str) -> Rendered:
    """The digest in the active language; the payload keeps the facts as they were queued."""
    digest = message.digest
    day = message.digest_day.isoformat() if message.digest_day else ""
    at = datetime.fromisoformat(digest["at"])
    waiting = digest["waiting"]
    lines = [gettext("Lookout daily digest, %(moment)s") % {"moment": _when(at)}, ""]
    lines.append(
        ngettext(
            "Waiting for a decision: %(count)s unit",
            "Waiting for a decision: %(count)s units",
            waiting["count"],
        )
        % {"count": vocabulary.number(waiting["count"])}
    )
    oldest = waiting.get("oldest")
    if oldest:
        oldest["url"] = _absolute(oldest["path"])
        since = datetime.fromisoformat(oldest["waiting_since"])
        facts = {
            "unit": alert_words.unit_noun(oldest.get("unit_kind"))
            if "unit_kind" in oldest
            else oldest["kind"],
            "name": oldest["name"],
            "pipeline": oldest["pipeline"],
            "duration": vocabulary.duration((at - since).total_seconds()),
            "moment": _when(since),
        }
        if oldest["at_least"]:
            line = gettext(
                "Oldest: %(unit)s %(name)s (%(pipeline)s) has waited at least %(duration)s, "
                "since %(moment)s (Lookout first saw it waiting)"
            )
        else:
            line = gettext(
                "Oldest: %(unit)s %(name)s (%(pipeline)s) has waited %(duration)s, "
                "since %(moment)s (workflow service's time)"
            )
        lines.append(line % facts + (f": {oldest['decision']}" if oldest["decision"] else ""))
        lines.append(f"  {oldest['url']}")
    failed = sum(group["count"] for group in digest["failures"])
    lines += [
        "",
        ngettext(
            "Failures in the last 24 hours: %(count)s unit",
            "Failures in the last 24 hours: %(count)s units",
            failed,
        )
        % {"count": vocabulary.number(failed)},
    ]
    for group in digest["failures"]:
        last = group["last_failed_at"]
        facts = {
            "pipeline": group["pipeline_name"],
            "count": vocabulary.number(group["count"]),
            "job": group["job"],
            "moment": _when(datetime.fromisoformat(last)) if last else "",
        }
        lines.append(
            "- "
            + (
                gettext("%(pipeline)s: %(count)s at %(job)s (last %(moment)s)")
                if last
                else gettext("%(pipeline)s: %(count)s at %(job)s")
            )
            % facts
        )
    lines += ["", gettext("Storage spaces:")]
    lines += [
        f"- {space['name']}: {vocabulary.usage_text(space['used'], space['size'])}"
        if space.get("used") is not None
        else f"- {space['name']}: {space['text']}"
        for space in digest["spaces"]
    ]
    if not digest["spaces"]:
        lines.append("- " + gettext("none known yet (the storage service has not been polled)"))
    lines += ["", gettext("Alerts: %(url)s") % {"url": _absolute(reverse("dashboard:alert-list"))}]
    text = "\n".join(lines)
    subject = gettext("[Lookout] Daily digest %(day)s: %(waiting)s waiting, %(failed)s failed") % {
        "day": day,
        "waiting": waiting["count"],
        "failed": failed,
    }
    return Rendered(
        subject=subject,
        text=text,
        payload={"id": message_id, "event": "digest", "day": day, "digest": digest, "text": text},
    )


def message_render(message: AlertMessage) -> Rendered:
    """What a message says, in its channel's language: one text for e-mail and Slack, one
    JSON object for webhooks (whose keys and codes stay as they are)."""
    with translation.override(message.channel.language or settings.LANGUAGE_CODE):
        return _render(message)


def _render(message: AlertMessage) -> Rendered:
    alert = message.alert
    message_id = f"lookout-{message.pk}"
    if message.kind == AlertMessage.Kind.DIGEST:
        return _digest_render(message, message_id)
    if alert is None:
        text = gettext("This is a test message from Lookout. If you read it, the channel works.")
        return Rendered(
            subject=gettext("[Lookout] Test message"),
            text=text,
            payload={"id": message_id, "event": "test", "text": text},
        )
    members = _members(alert)
    silence_path = reverse(
        "dashboard:alert-silence-link",
        kwargs={
            "token": silence_token(
                alert_id=alert.pk, channel_id=message.channel_id, signed_at=message.created_at
            )
        },
    )
    resolved = message.kind == AlertMessage.Kind.RESOLVED
    title, detail = alert.text()
    headline = gettext("Resolved: %(title)s") % {"title": title} if resolved else title
    if members:
        headline = ngettext(
            "%(title)s (and %(count)s more unit at the same job)",
            "%(title)s (and %(count)s more units at the same job)",
            len(members),
        ) % {"title": headline, "count": vocabulary.number(len(members))}
    lines = [headline, "", detail]
    lines += [f"- {member.text()[0]}: {_absolute(member.link)}" for member in members]
    lines += [
        "",
        gettext("Since: %(moment)s") % {"moment": _when(alert.opened_at)},
    ]
    if resolved:
        lines.append(gettext("Resolved: %(moment)s") % {"moment": _when(alert.resolved_at)})
    if alert.link:
        lines.append(gettext("Open in Lookout: %(url)s") % {"url": _absolute(alert.link)})
    alert_url = _absolute(reverse("dashboard:alert-detail", kwargs={"alert_id": alert.pk}))
    lines.append(gettext("Alert: %(url)s") % {"url": alert_url})
    if not resolved:
        lines.append(gettext("Silence it: %(url)s") % {"url": _absolute(silence_path)})
    text = "\n".join(line for line in lines if line is not None).replace("\n\n\n", "\n\n")

    def one(a: Alert) -> dict[str, Any]:
        a_title, a_detail = a.text()
        return {
            "subject": a.subject,
            "title": a_title,
            "detail": a_detail,
            "pipeline": a.pipeline,
            "opened_at": a.opened_at.isoformat(),
            "url": _absolute(a.link),
        }

    payload = {
        "id": message_id,
        "event": message.kind,
        "language": translation.get_language(),
        "alert": {
            "id": alert.pk,
            "kind": alert.kind,
            "state": alert.state,
            **one(alert),
            "resolved_at": alert.resolved_at.isoformat() if alert.resolved_at else None,
            "alert_url": alert_url,
            "silence_url": _absolute(silence_path),
            "grouped": [one(m) for m in members],
        },
        "text": text,
    }
    return Rendered(subject=f"[Lookout] {headline}", text=text, payload=payload)


def _severity(message: AlertMessage) -> apprise_notify.Severity:
    """How a service that colours or ranks messages (Teams, PagerDuty) marks this one."""
    if message.kind == AlertMessage.Kind.FIRED:
        return apprise_notify.Severity.FAILURE
    if message.kind == AlertMessage.Kind.RESOLVED:
        return apprise_notify.Severity.SUCCESS
    return apprise_notify.Severity.INFO


def _send(message: AlertMessage, rendered: Rendered) -> None:
    channel = message.channel
    message_id = f"lookout-{message.pk}"
    timeout = float(getattr(settings, "LOOKOUT_WEBHOOK_TIMEOUT", 10.0))
    if channel.kind == AlertChannel.Kind.EMAIL:
        domain = str(getattr(settings, "LOOKOUT_PUBLIC_URL", "")).split("//")[-1].split("/")[0]
        notify.email_send(
            to=channel.target,
            subject=rendered.subject,
            body=rendered.text,
            headers={
                "Message-ID": f"<{message_id}@{domain or 'lookout'}>",
                notify.MESSAGE_ID_HEADER: message_id,
            },
        )
    elif channel.kind == AlertChannel.Kind.APPRISE:
        apprise_notify.apprise_send(
            url=channel.secret,
            title=rendered.subject,
            body=rendered.text,
            severity=_severity(message),
            timeout=timeout,
        )
    elif channel.kind == AlertChannel.Kind.SLACK:
        body = json.dumps({"text": rendered.text}).encode("utf-8")
        notify.webhook_post(url=channel.target, body=body, message_id=message_id, timeout=timeout)
    else:
        body = json.dumps(rendered.payload, separators=(",", ":")).encode("utf-8")
        notify.webhook_post(
            url=channel.target,
            body=body,
            secret=channel.secret,
            message_id=message_id,
            timeout=timeout,
        )


def backoff(attempts: int) -> timedelta:
    """30 s, 1 min, 2 min, 4 min ... at most an hour, after the n-th failed attempt."""
    delay: timedelta = BACKOFF_FIRST * (2 ** max(0, attempts - 1))
    return min(BACKOFF_MAX, delay)


@dataclass(frozen=True)
class DeliveryLimits:
    # How long a claim keeps other senders off a message.
    lease: timedelta
    # How long a run may go on claiming new messages: after that one more send (at its
    # longest) still ends before the task's hard time limit.
    claim_for: float


def delivery_limits() -> DeliveryLimits:
    run = float(settings.LOOKOUT_ALERT_DELIVERY_SECONDS)
    longest_send = max(2 * float(settings.LOOKOUT_WEBHOOK_TIMEOUT), float(settings.EMAIL_TIMEOUT))
    return DeliveryLimits(lease=timedelta(seconds=2 * run), claim_for=run - longest_send)


def _claimable(now: datetime) -> Q:
    return Q(sent_at__isnull=True, gave_up_at__isnull=True, next_attempt_at__lte=now) & (
        Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)
    )


def message_deliver(*, message_id: int, now: datetime | None = None) -> bool | None:
    """Claim one due message and send it: True sent, False failed, None not ours to send."""
    now = now or timezone.now()
    token = uuid.uuid4().hex
    claimed = AlertMessage.objects.filter(_claimable(now), pk=message_id).update(
        claim_token=token, claimed_until=now + delivery_limits().lease
    )
    if not claimed:
        return None  # sent, given up, not due, or another worker holds it
    message = AlertMessage.objects.select_related("alert", "channel").get(pk=message_id)
    mine = AlertMessage.objects.filter(pk=message_id, claim_token=token)
    alert = message.alert
    if alert is not None and message.kind != AlertMessage.Kind.RESOLVED and alert.silenced(now):
        mine.update(gave_up_at=now, claimed_until=None, last_error="Silenced before it was sent.")
        return False
    try:
        _send(message, message_render(message))
    except notify.NotifyError as exc:
        error = str(exc)[:2000]
        attempts = message.attempts + 1
        gave_up = now if attempts >= MAX_ATTEMPTS else None
        mine.update(
            attempts=attempts,
            last_error=error,
            next_attempt_at=now + backoff(attempts),
            claimed_until=None,
            gave_up_at=gave_up,
        )
        AlertChannel.objects.filter(pk=message.channel_id).update(
            last_error=error, last_error_at=timezone.now()
        )
        log.warning(
            "alert message %s to channel %s not sent: %s", message.pk, message.channel_id, error
        )
        return False
    mine.update(
        sent_at=timezone.now(), attempts=message.attempts + 1, claimed_until=None, last_error=""
    )
    AlertChannel.objects.filter(pk=message.channel_id).update(last_success_at=timezone.now())
    return True


@dataclass(frozen=True)
class DeliverySummary:
    sent: int
    failed: int

    def line(self) -> str:
        return f"alert messages: {self.sent} sent, {self.failed} failed"


def outbox_deliver_due(
    *, now: datetime | None = None, limit: int = DELIVER_BATCH
) -> DeliverySummary:
    """Send every due message once (oldest first); failures wait for their backoff.

    Stops claiming when one more send could outlast the task's time limit; the next run
    (every poll queues one) takes the rest. `now` is for tests that move the clock;
    otherwise each claim is taken at its own moment, so a late one gets its full lease.
    """
    due = list(
        AlertMessage.objects.filter(_claimable(now or timezone.now()))
        .order_by("next_attempt_at", "id")
        .values_list("pk", flat=True)[:limit]
    )
    started = time.monotonic()
    claim_for = delivery_limits().claim_for
    sent = failed = 0
    for index, message_id in enumerate(due):
        if index and time.monotonic() - started > claim_for:
            break  # the first always goes: every run makes progress
        outcome = message_deliver(message_id=message_id, now=now)
        sent += outcome is True
        failed += outcome is False
    return DeliverySummary(sent=sent, failed=failed)
