"""What Lookout keeps in its own database: the record of everything a user can see.

Units, their jobs, the freshness of every poller, the history of status changes, the
audit log, fixity results, wall links and the package mirror. The cache only caches:
flushing it loses nothing here.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.serializers.json import DjangoJSONEncoder
from django.db import models
from django.db.models.functions import Coalesce, NullIf
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from dashboard.lib import alert_words, vocabulary
from dashboard.lib import histogram as histogram_buckets

# An action's upstream calls time out within seconds; a row PENDING for longer than
# this will never be finished by the request that made it.
PENDING_OUTCOME_UNKNOWN_AFTER = timedelta(minutes=5)
OUTCOME_UNKNOWN = "unknown"


class UnitKind(models.TextChoices):
    TRANSFER = "transfer", _("Transfer")
    SIP = "sip", _("SIP")


FINAL_STATUSES = frozenset({"COMPLETE", "FAILED", "REJECTED"})
# A unit that exists upstream but has no jobs yet ("unable to determine its status").
PENDING = "PENDING"
# A unit seen in a list but whose status has not been fetched yet.
UNKNOWN = "UNKNOWN"


VISIBLE = models.Q(hidden=False)
VISIBLE_FAILED = models.Q(hidden=False, status="FAILED")
# The job a failed unit failed at, as the failure groups name it: the microservice when
# the job is not known yet.
FAILED_AT_JOB = Coalesce(NullIf("failed_job", models.Value("")), "microservice")
# The units a poll cycle may change: unfinished, waiting, or still to be detailed. The
# cycle's query and the partial index `unit_working_set` use this same expression (the
# statuses in a fixed order), so that SQLite too can prove the index covers the query.
WORKING_SET = (
    ~models.Q(status__in=sorted(FINAL_STATUSES))
    | models.Q(awaiting_sip_uuid=True)
    | models.Q(needs_details=True)
    | models.Q(awaiting_decision=True)
)


class TimesFrom(models.TextChoices):
    """Where a unit's time comes from: the service's own task times, or Lookout's eyes."""

    UPSTREAM = "upstream", _("From the workflow service")
    OBSERVED = "observed", _("First seen by Lookout")


class Unit(models.Model):
    """What Lookout last learnt about one transfer or SIP of one pipeline."""

    pipeline = models.CharField(max_length=40)
    uuid = models.CharField(max_length=36)
    # "transfer", "sip", or "" until the first status call tells.
    kind = models.CharField(max_length=10, blank=True)
    name = models.CharField(max_length=255, blank=True)
    status = models.CharField(max_length=20, default=UNKNOWN)
    microservice = models.CharField(max_length=255, blank=True)
    path = models.TextField(blank=True)
    directory = models.CharField(max_length=255, blank=True)
    transfer_type = models.CharField(max_length=40, blank=True)
    # NULL, not "", for "not linked": the API says null and the link lookups stay simple.
    sip_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    transfer_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    sent_to_backlog = models.BooleanField(default=False)
    # COMPLETE, but the service has not named the SIP yet: keep polling.
    awaiting_sip_uuid = models.BooleanField(default=False)
    awaiting_approval = models.BooleanField(default=False)
    awaiting_decision = models.BooleanField(default=False)
    decision = models.CharField(max_length=255, blank=True)
    # With a dashboard account: the job that waits for the decision, and its choices
    # (`{"<choice key>": "<label>"}` as JSON text) as the status lists gave them. NULL
    # when not known: a nullable column is added without rebuilding the table (SQLite
    # would drop the kept-count triggers with it).
    decision_job_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    decision_choices = models.TextField(null=True, blank=True)  # noqa: DJ001
    waiting_since = models.DateTimeField(null=True, blank=True)
    waiting_since_from = models.CharField(
        max_length=10, choices=TimesFrom.choices, default=TimesFrom.OBSERVED
    )
    # Since when the unit is in its current status (or microservice, while processing).
    status_since = models.DateTimeField(null=True, blank=True)
    status_since_from = models.CharField(
        max_length=10, choices=TimesFrom.choices, default=TimesFrom.OBSERVED
    )
    # The job that failed (never the clean-up group after it), and when.
    failed_job = models.CharField(max_length=255, blank=True)
    failed_job_uuid = models.CharField(max_length=36, blank=True)
    failed_group = models.CharField(max_length=255, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    failed_at_from = models.CharField(
        max_length=10, choices=TimesFrom.choices, default=TimesFrom.OBSERVED
    )
    hidden = models.BooleanField(default=False)
    hidden_by = models.CharField(max_length=150, blank=True)
    hidden_at = models.DateTimeField(null=True, blank=True)
    # Hidden in Lookout by a bulk hide: the workflow service is asked to hide it once
    # this passes (its hide cannot be undone), unless someone undoes it first.
    hide_upstream_after = models.DateTimeField(null=True, blank=True)
    hide_request = models.ForeignKey(
        "AuditEntry", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    # When Lookout saw the unit leave the service's own dashboard lists (hidden there)
    # while they answered; only read with a dashboard account.
    hidden_upstream_at = models.DateTimeField(null=True, blank=True)
    # With a dashboard account: the unit's progress in the status lists (a digest of its
    # jobs) when its status was last read. While the lists answer and this has not
    # changed, the status lists stand in for its per-unit status reads. NULL: not known.
    listed_progress = models.CharField(max_length=16, null=True, blank=True)  # noqa: DJ001
    first_seen_at = models.DateTimeField()
    # When Lookout saw the status or microservice change (or first saw the unit).
    updated_at = models.DateTimeField()
    last_polled_at = models.DateTimeField(null=True, blank=True)
    next_poll_at = models.DateTimeField(null=True, blank=True)
    poll_error = models.TextField(blank=True)
    missing_count = models.PositiveSmallIntegerField(default=0)
    # Found already finished in a completed list: its details are fetched later.
    needs_details = models.BooleanField(default=False)
    # Lookout saw it finish: its jobs are fetched one last time.
    seen_finishing = models.BooleanField(default=False)
    # Found already finished: its jobs are fetched once, with what a jobs refresh has
    # left over after the live units, so the analytics learn the history's times.
    learn_jobs = models.BooleanField(default=False)
    # Someone opened its page: fetch its jobs in the next jobs refresh.
    jobs_requested_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "uuid"], name="unit_pipeline_uuid"),
        ]
        # Pages list visible units only: partial indexes on them, equality columns first
        # and the sort last, so every list is an index range scan however many finished
        # units there are.
        indexes = [
            models.Index(fields=["uuid"], name="unit_uuid"),
            # The poll cycle's working set, read without visiting the finished history.
            models.Index(fields=["pipeline"], name="unit_working_set", condition=WORKING_SET),
            models.Index(fields=["-updated_at"], name="unit_recent", condition=VISIBLE),
            models.Index(
                fields=["status", "-updated_at"], name="unit_status_recent", condition=VISIBLE
            ),
            models.Index(
                fields=["awaiting_decision", "waiting_since"],
                name="unit_waiting",
                condition=VISIBLE,
            ),
            models.Index(
                fields=["pipeline", "status", "-updated_at"],
                name="unit_pipeline_status",
                condition=VISIBLE,
            ),
            models.Index(
                fields=["pipeline", "awaiting_decision", "waiting_since"],
                name="unit_pipeline_waiting",
                condition=VISIBLE,
            ),
            models.Index(fields=["pipeline", "needs_details"], name="unit_needs_details"),
            # A read of the dashboard lists looks for the units they left out among those
            # not yet marked hidden upstream: few, however long the hidden history.
            models.Index(
                fields=["pipeline", "first_seen_at"],
                name="unit_listed_upstream",
                condition=models.Q(hidden_upstream_at__isnull=True),
            ),
            models.Index(fields=["pipeline", "jobs_requested_at"], name="unit_jobs_requested"),
            models.Index(
                fields=["pipeline", "-updated_at"],
                name="unit_learn_jobs",
                condition=models.Q(learn_jobs=True),
            ),
            models.Index(fields=["failed_at"], name="unit_failed_at", condition=VISIBLE),
            models.Index(
                fields=["status", "-failed_at"], name="unit_status_failed", condition=VISIBLE
            ),
            models.Index(
                fields=["hide_upstream_after"],
                name="unit_hide_upstream_due",
                condition=models.Q(hide_upstream_after__isnull=False),
            ),
            # The latest failure of one failure group (see FailureGroupCount).
            models.Index(
                FAILED_AT_JOB,
                "pipeline",
                "failed_at",
                name="unit_failure_group_last",
                condition=VISIBLE_FAILED,
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind or 'unit'} {self.name or self.uuid} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in FINAL_STATUSES and not self.awaiting_sip_uuid

    @property
    def approvable(self) -> bool:
        """A transfer waiting for approval: listed as unapproved, or waiting at the
        approval of a type the unapproved list leaves out (research data)."""
        return self.awaiting_approval or (
            self.awaiting_decision
            and vocabulary.unlisted_approval_type(self.decision or self.microservice) is not None
        )

    @property
    def approval_transfer_type(self) -> str:
        """The transfer type the approve call names."""
        unlisted = vocabulary.unlisted_approval_type(self.decision or self.microservice)
        return unlisted or self.transfer_type or "standard"

    @property
    def status_label(self) -> str:
        return vocabulary.unit_status(self.status, sent_to_backlog=self.sent_to_backlog).text


class UnitJobs(models.Model):
    """A unit's jobs and their tasks as the workflow service last listed them."""

    unit = models.OneToOneField(Unit, on_delete=models.CASCADE, related_name="job_list")
    fetched_at = models.DateTimeField()
    # The unit's `updated_at` when these were fetched: older means a refresh is due.
    unit_updated_at = models.DateTimeField()
    jobs = models.JSONField(default=list, encoder=DjangoJSONEncoder)

    def __str__(self) -> str:
        return f"jobs of {self.unit_id} fetched at {self.fetched_at}"


class ServicePoll(models.Model):
    """How the last poll of one upstream service went: what freshness is shown from."""

    service = models.CharField(max_length=80, unique=True)
    last_attempt_at = models.DateTimeField(null=True, blank=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    last_duration_ms = models.PositiveIntegerField(null=True, blank=True)
    last_request_count = models.PositiveIntegerField(null=True, blank=True)
    # Counters since the row was made, for the /metrics counters (never reset).
    attempt_count = models.PositiveBigIntegerField(default=0)
    error_count = models.PositiveBigIntegerField(default=0)

    def __str__(self) -> str:
        return self.service


class StatusChange(models.Model):
    """One row per real change of a unit's status or current microservice."""

    pipeline = models.CharField(max_length=40)
    unit_uuid = models.UUIDField()
    unit_kind = models.CharField(max_length=10, choices=UnitKind.choices)
    unit_name = models.CharField(max_length=255, blank=True)
    from_status = models.CharField(max_length=20, blank=True)
    to_status = models.CharField(max_length=20)
    microservice = models.CharField(max_length=255, blank=True)
    at = models.DateTimeField()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [
            models.Index(fields=["pipeline", "unit_uuid", "-at"], name="statuschange_unit"),
            models.Index(fields=["pipeline", "to_status", "at"], name="statuschange_status"),
        ]

    def __str__(self) -> str:
        return f"{self.unit_uuid}: {self.from_status or '-'} -> {self.to_status} at {self.at}"


class AuditEntry(models.Model):
    """One operator action and what the upstream service answered.

    Never edited once it has its outcome; a QUEUED row (the action runs in a task, a
    fixity check) gets its outcome when the task ends.
    """

    class Outcome(models.TextChoices):
        PENDING = "pending", _("Pending")
        QUEUED = "queued", _("Queued, outcome to follow")
        # A decision answered through the dashboard, which answers 200 whether it acted
        # or not: a later read of its status lists settles it (done, or not taken).
        SENT = "sent", _("Sent, outcome to follow")
        DONE = "done", _("Done")
        REFUSED = "refused", _("Refused by the upstream service")
        FAILED = "failed", _("Upstream service unreachable or broken")
        TIMED_OUT = "timed_out", _("Upstream service did not answer in time")
        # A timed-out action that a later poll showed was not carried out.
        NOT_DONE = "not_done", _("Not done (seen by a later poll)")

    # A token from the confirmation form: a double submit finds the first row and does
    # not call the upstream service a second time.
    idempotency_key = models.CharField(max_length=64, unique=True)
    actor = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    actor_name = models.CharField(max_length=150)
    action = models.CharField(max_length=40)
    pipeline = models.CharField(max_length=40, blank=True)
    target_kind = models.CharField(max_length=20)
    target = models.CharField(max_length=255)
    target_label = models.CharField(max_length=255, blank=True)
    parameters = models.JSONField(default=dict, blank=True)
    requested_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    outcome = models.CharField(max_length=10, choices=Outcome.choices, default=Outcome.PENDING)
    upstream_status = models.PositiveSmallIntegerField(null=True, blank=True)
    upstream_message = models.TextField(blank=True)

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["target"], name="auditentry_target")]
        constraints = [
            # Two requests at once for the same action on the same target (two people,
            # two tabs) make one upstream call: the second cannot claim its row.
            # Downloads only read, so any number may run.
            models.UniqueConstraint(
                fields=["action", "target"],
                condition=models.Q(outcome="pending") & ~models.Q(action="package_download"),
                name="auditentry_one_in_flight",
            ),
        ]
        permissions = [
            ("approve_transfer", "Can approve transfers"),
            ("hide_unit", "Can hide finished units"),
            ("start_transfer", "Can start transfers"),
            ("operate_packages", "Can run package operations (fixity, download, move)"),
            ("request_package_deletion", "Can request package deletion and recovery"),
            ("reingest_package", "Can start a reingest"),
            ("manage_wall_links", "Can create and revoke wall-screen links"),
            ("view_audit", "Can read the audit log"),
            ("validate_csv", "Can send CSV files to the workflow service's validators"),
            ("approve_reingest", "Can start and approve a partial reingest"),
            ("add_metadata_files", "Can add metadata files to a SIP"),
            ("set_path_metadata", "Can set the level of description of a path"),
            ("fetch_levels", "Can fetch the levels of description from the access system"),
            ("answer_decisions", "Can answer decisions in the workflow service"),
        ]

    def __str__(self) -> str:
        return f"{self.actor_name} {self.action} {self.target} ({self.outcome})"

    @property
    def outcome_unknown(self) -> bool:
        """Still PENDING long after any upstream call would have timed out: the process
        died between claiming the action and recording its answer."""
        return (
            self.outcome == self.Outcome.PENDING
            and timezone.now() - self.requested_at > PENDING_OUTCOME_UNKNOWN_AFTER
        )

    @property
    def shown_outcome(self) -> str:
        """The outcome for pages: `unknown` for a row stuck in PENDING."""
        return OUTCOME_UNKNOWN if self.outcome_unknown else self.outcome


# A fixity task still without a result after this long is shown as lost, not running.
FIXITY_LOST_AFTER = timedelta(minutes=30)


class FixityCheck(models.Model):
    """The result of one fixity check of a package, kept as history."""

    package_uuid = models.UUIDField()
    requested_by = models.CharField(max_length=150, blank=True)
    requested_at = models.DateTimeField()
    checked_at = models.DateTimeField(null=True, blank=True)
    success = models.BooleanField(null=True)
    message = models.TextField(blank=True)
    failures = models.JSONField(default=list, blank=True)
    error = models.TextField(blank=True)
    # The audit row of the request: it gets the check's outcome when the task ends.
    audit_entry = models.ForeignKey(
        AuditEntry, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )

    class Meta:
        ordering = ["-requested_at", "-id"]
        indexes = [models.Index(fields=["package_uuid", "-requested_at"], name="fixity_package")]

    def __str__(self) -> str:
        return f"fixity of {self.package_uuid} at {self.requested_at}: {self.success}"

    @property
    def running(self) -> bool:
        return self.checked_at is None and not self.lost

    @property
    def lost(self) -> bool:
        """No result long after it was asked for: its task was lost (worker killed, say)."""
        return self.checked_at is None and timezone.now() - self.requested_at > FIXITY_LOST_AFTER


class TaskLock(models.Model):
    """A lock held by one poll or task run at a time (see `dashboard.services.locks`)."""

    name = models.CharField(max_length=200, unique=True)
    # Only the holder's token releases it; past `expires_at` another run may take it over.
    token = models.CharField(max_length=32)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return self.name


class WallLink(models.Model):
    """A revocable read-only link that opens the wall screen and nothing else."""

    name = models.CharField(max_length=80, unique=True)
    # Only a hash is stored: the token itself is shown once, when the link is made.
    token_hash = models.CharField(max_length=64, unique=True)
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField()
    revoked_at = models.DateTimeField(null=True, blank=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    # A kiosk has no picker: the wall shows in the language the link was made in (one of
    # settings.LANGUAGES), whatever the screen's browser asks for.
    language = models.CharField(max_length=10, default="en")

    class Meta:
        ordering = ["name"]

    def __str__(self) -> str:
        return self.name

    @property
    def active(self) -> bool:
        return self.revoked_at is None


# --- Storage service: package mirror ------------------------------------------------
# The read model of the package pages and API. The storage service has no ordering and
# no modified-since filter, so 100,000 packages cannot be listed live; the storage
# poller keeps this table in step (see `dashboard.services.storage`).


class StoragePackage(models.Model):
    """What the storage service last said about one package."""

    uuid = models.CharField(max_length=36, primary_key=True)
    # Taken from the end of `current_path`, without the UUID suffix and archive extension.
    name = models.CharField(max_length=255, blank=True)
    package_type = models.CharField(max_length=16)
    status = models.CharField(max_length=16)
    size = models.BigIntegerField(null=True, blank=True)
    current_location_uuid = models.CharField(max_length=36, blank=True)
    origin_pipeline_uuid = models.CharField(max_length=36, blank=True)
    current_path = models.TextField(blank=True)
    current_full_path = models.TextField(blank=True)
    # Converted from the storage server's local clock (LOOKOUT_STORAGE_TIME_ZONE).
    stored_date = models.DateTimeField(null=True, blank=True)
    encrypted = models.BooleanField(default=False)
    related_uuids = models.JSONField(default=list, blank=True)
    replica_uuids = models.JSONField(default=list, blank=True)
    replicated_package_uuid = models.CharField(max_length=36, blank=True)
    misc_attributes = models.JSONField(default=dict, blank=True)
    first_seen_at = models.DateTimeField()
    # The last sync that saw it; a full resync drops rows it no longer finds upstream.
    seen_at = models.DateTimeField()

    class Meta:
        ordering = ["-stored_date", "-uuid"]
        # Filter columns, and the sort columns each with the UUID tie-break; the two
        # most used filters also come with the default sort, so deep pages stay cheap.
        indexes = [
            models.Index(
                fields=["package_type", "stored_date", "uuid"], name="storagepkg_type_stored"
            ),
            models.Index(
                fields=["current_location_uuid", "stored_date", "uuid"],
                name="storagepkg_location_stored",
            ),
            models.Index(fields=["status"], name="storagepkg_status"),
            models.Index(fields=["origin_pipeline_uuid"], name="storagepkg_pipeline"),
            models.Index(fields=["stored_date", "uuid"], name="storagepkg_stored"),
            models.Index(fields=["size", "uuid"], name="storagepkg_size"),
            models.Index(fields=["name", "uuid"], name="storagepkg_name"),
        ]

    def __str__(self) -> str:
        return f"{self.package_type} {self.name or self.uuid} ({self.status})"

    @property
    def status_label(self) -> str:
        return vocabulary.package_status(self.status).text


class StorageSummary(models.Model):
    """Pipelines, spaces and locations as the last storage poll listed them (one row)."""

    fetched_at = models.DateTimeField()
    # pipelines, spaces, locations, package counts and pending requests, as listed.
    data = models.JSONField(default=dict, encoder=DjangoJSONEncoder)

    def __str__(self) -> str:
        return f"storage summary of {self.fetched_at}"


class PackageDetails(models.Model):
    """A package's contents and pointer file, fetched when someone opened its page."""

    package_uuid = models.CharField(max_length=36, primary_key=True)
    fetched_at = models.DateTimeField()
    # The file list as the service gave it; None when it could not be fetched.
    files = models.JSONField(null=True, blank=True, encoder=DjangoJSONEncoder)
    files_error = models.TextField(blank=True)
    pointer = models.TextField(null=True, blank=True)  # noqa: DJ001  (None: not fetched)
    pointer_error = models.TextField(blank=True)

    def __str__(self) -> str:
        return f"details of {self.package_uuid}"


class PackageSync(models.Model):
    """Where the package mirror stands between storage polls (one row)."""

    last_full_sync_at = models.DateTimeField(null=True, blank=True)
    last_incremental_at = models.DateTimeField(null=True, blank=True)
    # A full resync under way: when it started and how far it got.
    full_sync_started_at = models.DateTimeField(null=True, blank=True)
    full_sync_offset = models.PositiveIntegerField(default=0)
    full_sync_requested = models.BooleanField(default=False)
    # Newest `stored_date` seen, naive, in the storage server's clock (as the filter wants).
    stored_date_cursor = models.DateTimeField(null=True, blank=True)
    upstream_total = models.PositiveIntegerField(null=True, blank=True)

    def __str__(self) -> str:
        return f"package sync (full sync {self.last_full_sync_at})"


# --- Alerts: rules, channels, alerts and the outbox of messages ----------------------
# Modelled on healthchecks' Check/Channel/Flip: an alert is an event row deduplicated by
# (rule, subject); every message to a channel is an outbox row, claimed by a conditional
# UPDATE before it is sent, so a restarted worker resends nothing that was recorded sent.


class AlertKind(models.TextChoices):
    UNIT_FAILED = "unit_failed", _("A unit failed")
    UNIT_WAITING = "unit_waiting", _("A unit waits for a decision too long")
    UNIT_STUCK = "unit_stuck", _("A unit makes no progress")
    SERVICE_STALE = "service_stale", _("An upstream service is stale")
    STORAGE_FULL = "storage_full", _("A storage space or location is nearly full")
    FIXITY_FAILED = "fixity_failed", _("A fixity check failed")
    INGEST_FINISHED = "ingest_finished", _("An ingest run finished")
    INGEST_STALLED = "ingest_stalled", _("An ingest run is stalled")


class AlertRule(models.Model):
    """When to open an alert. `threshold` is read per kind (see `THRESHOLD_UNITS`)."""

    # What the threshold counts, per kind: shown on the settings page.
    THRESHOLD_UNITS = {
        AlertKind.UNIT_FAILED: _("minutes (failures at the same job within this are one message)"),
        AlertKind.UNIT_WAITING: _("hours of waiting"),
        AlertKind.UNIT_STUCK: _("hours without progress"),
        AlertKind.SERVICE_STALE: _("missed poll intervals"),
        AlertKind.STORAGE_FULL: _("percent full"),
        AlertKind.FIXITY_FAILED: _("(no threshold)"),
        AlertKind.INGEST_FINISHED: _("(no threshold)"),
        AlertKind.INGEST_STALLED: _("hours without a finished item while items are queued"),
    }

    kind = models.CharField(max_length=20, choices=AlertKind.choices)
    # "" for every pipeline; a pipeline slug to watch one pipeline only.
    pipeline = models.CharField(max_length=40, blank=True)
    threshold = models.PositiveIntegerField(default=0)
    enabled = models.BooleanField(default=True)
    # Made by Lookout at first start: new channels receive these.
    is_default = models.BooleanField(default=False)
    channels: models.ManyToManyField[AlertChannel, Any] = models.ManyToManyField(
        "AlertChannel", blank=True, related_name="rules"
    )
    # Per scope ("workflow:<slug>", "storage", "fixity"): when this rule was first
    # evaluated there. What was already true then is recorded as baseline, not sent.
    baselines = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        ordering = ["kind", "pipeline"]
        constraints = [
            models.UniqueConstraint(fields=["kind", "pipeline"], name="alertrule_kind_pipeline"),
        ]
        permissions = [
            ("manage_alerts", "Can change alert rules and channels"),
            ("silence_alerts", "Can silence alerts"),
        ]

    def __str__(self) -> str:
        # Outside the f-string: xgettext does not read calls inside one.
        where = self.pipeline or _("all pipelines")
        return f"{self.get_kind_display()} ({where})"

    @property
    def threshold_unit(self) -> str:
        return str(self.THRESHOLD_UNITS.get(AlertKind(self.kind), ""))


def default_language() -> str:
    return str(settings.LANGUAGE_CODE)


class AlertChannel(models.Model):
    """Where messages go: an e-mail address, a signed JSON webhook, a Slack webhook, or
    any service Apprise reaches by URL (Teams, Matrix, Mattermost, ntfy, PagerDuty, ...)."""

    if TYPE_CHECKING:
        rules: models.Manager[AlertRule]

    class Kind(models.TextChoices):
        EMAIL = "email", _("E-mail")
        WEBHOOK = "webhook", _("Webhook (signed JSON)")
        SLACK = "slack", _("Slack-compatible webhook")
        APPRISE = "apprise", _("Apprise URL (Teams, Matrix, Mattermost, ntfy, ...)")

    kind = models.CharField(max_length=10, choices=Kind.choices)
    # What pages and commands show: the address, or an Apprise URL with its secrets masked.
    target = models.CharField(max_length=500)
    # The webhook signing key (HMAC-SHA256), shown once when the channel is made; or the
    # whole Apprise URL, never shown again. Stored because Lookout must send with it.
    secret = models.CharField(max_length=2000, blank=True)
    enabled = models.BooleanField(default=True)
    created_by = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    last_success_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    last_error_at = models.DateTimeField(null=True, blank=True)
    # Opted in to a daily digest, sent at this hour (TIME_ZONE); None: no digest.
    digest_hour = models.PositiveSmallIntegerField(null=True, blank=True)
    # The language its messages are written in: a code of LANGUAGES (checked by the
    # service, not by choices, so that adding a language needs no migration).
    language = models.CharField(max_length=10, default=default_language)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"{self.get_kind_display()} {self.target}"

    @property
    def failing(self) -> bool:
        """The last attempt failed (a later success clears it)."""
        return bool(self.last_error) and (
            self.last_success_at is None
            or (self.last_error_at is not None and self.last_error_at > self.last_success_at)
        )


class Alert(models.Model):
    """One condition of one rule for one subject, from when it was seen until it cleared."""

    class State(models.TextChoices):
        OPEN = "open", _("Open")
        RESOLVED = "resolved", _("Resolved")

    rule = models.ForeignKey(AlertRule, on_delete=models.CASCADE, related_name="alerts")
    kind = models.CharField(max_length=20, choices=AlertKind.choices)
    # What the alert is about: "unit:<pipeline>:<uuid>", "service:<name>", "space:<uuid>",
    # "location:<uuid>", "fixity:<package uuid>".
    subject = models.CharField(max_length=200)
    # Where the rule looked: "workflow:<slug>", "services", "storage" or "fixity".
    scope = models.CharField(max_length=80)
    pipeline = models.CharField(max_length=40, blank=True)
    title = models.CharField(max_length=300)
    detail = models.TextField(blank=True)
    # A path on Lookout (the unit page, the storage page): messages make it absolute.
    link = models.CharField(max_length=300, blank=True)
    # Failures at the same job of one pipeline: "<pipeline>:<job>". Members of a group
    # point at the alert that carries the messages.
    group_key = models.CharField(max_length=300, blank=True)
    # What it is about, as facts (`lib/alert_words`): each message is written from them
    # in its channel's language. Empty for alerts made before Lookout was translated.
    words = models.JSONField(default=dict, blank=True, encoder=DjangoJSONEncoder)
    group_leader = models.ForeignKey(
        "self", null=True, blank=True, on_delete=models.SET_NULL, related_name="members"
    )
    state = models.CharField(max_length=10, choices=State.choices, default=State.OPEN)
    # When the condition began, from upstream times where there are any.
    opened_at = models.DateTimeField()
    # When Lookout noticed it.
    seen_at = models.DateTimeField()
    resolved_at = models.DateTimeField(null=True, blank=True)
    silenced_until = models.DateTimeField(null=True, blank=True)
    silenced_by = models.CharField(max_length=150, blank=True)
    # Already true when the rule was first evaluated: shown, never sent.
    baseline = models.BooleanField(default=False)

    class Meta:
        ordering = ["-opened_at", "-id"]
        constraints = [
            # One open alert per rule and subject: a condition fires once.
            models.UniqueConstraint(
                fields=["rule", "subject"],
                condition=models.Q(state="open"),
                name="alert_one_open_per_subject",
            ),
        ]
        indexes = [
            models.Index(fields=["state", "-opened_at"], name="alert_state_opened"),
            models.Index(fields=["rule", "scope", "state"], name="alert_rule_scope"),
            models.Index(fields=["rule", "state", "group_key"], name="alert_rule_group"),
        ]

    def __str__(self) -> str:
        return f"{self.title} ({self.state})"

    def text(self) -> tuple[str, str]:
        """(title, detail) in the active language; as stored when it has no words."""
        return alert_words.alert_text(self.words) or (self.title, self.detail)

    @property
    def shown_title(self) -> str:
        """The title in the reader's language (templates: `alert.shown_title`)."""
        return self.text()[0]

    @property
    def shown_detail(self) -> str:
        return self.text()[1]

    def silenced(self, now: datetime | None = None) -> bool:
        return self.silenced_until is not None and self.silenced_until > (now or timezone.now())

    @property
    def shown_state(self) -> str:
        """open, silenced or resolved: what the alerts page filters on."""
        if self.state == self.State.OPEN and self.silenced():
            return "silenced"
        return self.state


class AlertMessage(models.Model):
    """The outbox: one message to one channel. Never created twice, never sent twice."""

    class Kind(models.TextChoices):
        FIRED = "fired", _("Fired")
        RESOLVED = "resolved", _("Resolved")
        TEST = "test", _("Test")
        DIGEST = "digest", _("Daily digest")

    alert = models.ForeignKey(
        Alert, null=True, blank=True, on_delete=models.CASCADE, related_name="messages"
    )
    channel = models.ForeignKey(AlertChannel, on_delete=models.CASCADE, related_name="messages")
    kind = models.CharField(max_length=10, choices=Kind.choices)
    created_at = models.DateTimeField()
    next_attempt_at = models.DateTimeField()
    attempts = models.PositiveSmallIntegerField(default=0)
    # Taken by a sender with a conditional UPDATE; another may take it after this time.
    claim_token = models.CharField(max_length=32, blank=True)
    claimed_until = models.DateTimeField(null=True, blank=True)
    sent_at = models.DateTimeField(null=True, blank=True)
    # Given up after too many attempts (the channel shows the error).
    gave_up_at = models.DateTimeField(null=True, blank=True)
    last_error = models.TextField(blank=True)
    # A digest: the day (TIME_ZONE) it is for, and what it says, taken when it was queued.
    # The row is the "last sent" record: one per channel and day, whatever restarts.
    digest_day = models.DateField(null=True, blank=True)
    digest = models.JSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["alert", "channel", "kind"],
                condition=models.Q(alert__isnull=False),
                name="alertmessage_once",
            ),
            models.UniqueConstraint(
                fields=["channel", "digest_day"],
                condition=models.Q(digest_day__isnull=False),
                name="alertmessage_one_digest_a_day",
            ),
        ]
        indexes = [
            models.Index(
                fields=["next_attempt_at"],
                name="alertmessage_due",
                condition=models.Q(sent_at__isnull=True, gave_up_at__isnull=True),
            ),
        ]

    def __str__(self) -> str:
        return f"{self.kind} message {self.pk} to {self.channel_id}"


# --- Analytics rollups --------------------------------------------------------------
# Kept up to date by the pollers as changes arrive (`dashboard.services.analytics`) and
# built for an existing install by `manage.py analytics_backfill`: the analytics page
# reads these small tables, never the whole history. Durations are kept as a count, a
# sum and a fixed histogram (`dashboard.lib.histogram`), so medians and 90th percentiles
# of any period are read by adding the days' histograms.


class AnalyticsCoverage(models.Model):
    """Since when Lookout has been watching a pipeline: earlier days are not covered."""

    pipeline = models.CharField(max_length=40, unique=True)
    watching_since = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.pipeline} watched since {self.watching_since}"


class DailyThroughput(models.Model):
    """Units started and AIPs stored per pipeline and day ("" pipeline: an AIP whose SIP
    Lookout does not know)."""

    pipeline = models.CharField(max_length=40)
    day = models.DateField()
    transfers_started = models.PositiveIntegerField(default=0)
    sips_started = models.PositiveIntegerField(default=0)
    # Starts whose time is the moment Lookout first saw the unit (no task times).
    started_observed = models.PositiveIntegerField(default=0)
    aips_stored = models.PositiveIntegerField(default=0)
    bytes_stored = models.BigIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "day"], name="throughput_pipeline_day")
        ]
        indexes = [models.Index(fields=["day"], name="throughput_day")]

    def __str__(self) -> str:
        return f"throughput {self.pipeline} {self.day}"


class DurationHistogram(models.Model):
    """A count, a sum and one column per histogram bucket (`b0`...), so a period's
    histogram is one SUM per column in the database."""

    count = models.PositiveIntegerField(default=0)
    total_seconds = models.FloatField(default=0)

    class Meta:
        abstract = True

    @property
    def histogram(self) -> list[int]:
        return [getattr(self, name) for name in BUCKET_FIELDS]

    @histogram.setter
    def histogram(self, counts: list[int]) -> None:
        for name, count in zip(BUCKET_FIELDS, counts, strict=False):
            setattr(self, name, count)


BUCKET_FIELDS = tuple(f"b{index}" for index in range(histogram_buckets.SIZE))
for _name in BUCKET_FIELDS:
    DurationHistogram.add_to_class(_name, models.PositiveIntegerField(default=0))


class StageDuration(DurationHistogram):
    """Time units spent in one microservice group, by the day the group ended."""

    pipeline = models.CharField(max_length=40)
    group = models.CharField(max_length=255)
    day = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "group", "day"], name="stageduration_pipeline_group_day"
            )
        ]
        # Day first: a period reads daily rows for a few weeks at most (whole months come
        # from the monthly rows), a short index range, not a scan of every day's rows.
        indexes = [models.Index(fields=["day", "group", "pipeline"], name="stageduration_day")]

    def __str__(self) -> str:
        return f"{self.group} {self.pipeline} {self.day}"


class DecisionWait(DurationHistogram):
    """Time units waited for a person at one decision, by the day the wait ended."""

    pipeline = models.CharField(max_length=40)
    decision = models.CharField(max_length=255)
    day = models.DateField()
    # Waits whose start is the moment Lookout first saw them waiting (no task times).
    observed_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "decision", "day"], name="decisionwait_pipeline_day"
            )
        ]
        indexes = [models.Index(fields=["day"], name="decisionwait_day")]

    def __str__(self) -> str:
        return f"{self.decision} {self.pipeline} {self.day}"


class FailureCount(models.Model):
    """Units that ran a group (job "" ) or a job, and how many failed there, per day."""

    pipeline = models.CharField(max_length=40)
    group = models.CharField(max_length=255)
    job = models.CharField(max_length=255, blank=True)
    day = models.DateField()
    runs = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "group", "job", "day"], name="failurecount_key"
            )
        ]
        # Covering, day first: the few weeks of daily rows a period reads are one range.
        indexes = [
            models.Index(
                fields=["day", "group", "job", "pipeline", "runs", "failures"],
                name="failurecount_day",
            )
        ]

    def __str__(self) -> str:
        return f"{self.group}/{self.job} {self.pipeline} {self.day}"


class QueueSample(models.Model):
    """Units active and waiting in one pipeline, as the last poll of an hour saw them."""

    pipeline = models.CharField(max_length=40)
    hour = models.DateTimeField()
    active = models.PositiveIntegerField(default=0)
    waiting = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["pipeline", "hour"], name="queuesample_pipeline_hour")
        ]
        indexes = [models.Index(fields=["hour"], name="queuesample_hour")]

    def __str__(self) -> str:
        return f"queue {self.pipeline} {self.hour}"


class UnitTally(models.Model):
    """What one unit has already added to the rollups, so nothing is counted twice."""

    unit = models.OneToOneField(
        Unit, on_delete=models.CASCADE, primary_key=True, related_name="tally"
    )
    started = models.BooleanField(default=False)
    finished = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"tally of {self.unit_id}"


# --- API tokens -----------------------------------------------------------------------


class ApiToken(models.Model):
    """A person's named credential for the API, acting with that person's own roles.

    The token is shown once, when it is made. Only its SHA-256 is kept, beside a short
    random prefix that finds the row (and names the token in lists and audit entries).
    """

    user = models.ForeignKey("auth.User", on_delete=models.CASCADE, related_name="api_tokens")
    name = models.CharField(max_length=80)
    prefix = models.CharField(max_length=16, unique=True)
    secret_hash = models.CharField(max_length=64)
    created_at = models.DateTimeField()
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Two live tokens of one person never share a name: the list tells them apart.
            models.UniqueConstraint(
                fields=["user", "name"],
                condition=models.Q(revoked_at__isnull=True),
                name="apitoken_live_name_per_user",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix})"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class DirectoryAccount(models.Model):
    """An account a directory signs in (LDAP, OpenID Connect): its roles come from there.

    Written at every directory sign-in (dashboard/services/directory_roles.py); the LDAP
    check (dashboard/services/directory_accounts.py) looks for each LDAP one in the
    directory and takes the roles of one it no longer finds.
    """

    user = models.OneToOneField(
        "auth.User", on_delete=models.CASCADE, related_name="directory_account"
    )
    source = models.CharField(max_length=10)  # "ldap", "oidc"
    roles_set_at = models.DateTimeField()
    # When the LDAP check last found the account in the directory (None: not yet).
    seen_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"{self.user_id} ({self.source})"


class UnitStatusCount(models.Model):
    """Visible units per pipeline and status, for the summary's counts: the sum of
    `count` over a pipeline's and status's rows.

    Written by triggers on the unit table (migration 0017) in the same transaction as
    every insert, delete and change of status, pipeline or `hidden`, whichever code path
    writes it (the ORM, bulk writes, raw SQL): a row of +1 for the new state and one of
    -1 for the old. The poller folds them into one row per pipeline and status after
    each cycle (`unit_status_counts_fold`), so the counts cost a few rows however long
    the history, and are never out of step with the units.

    SQLite drops a table's triggers when a migration rebuilds it (adding a NOT NULL
    field does): a later migration that rebuilds the unit table must run 0017's trigger
    SQL again, or tests/test_unit_status_counts.py fails."""

    pipeline = models.CharField(max_length=40)
    status = models.CharField(max_length=20)
    count = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["pipeline", "status"], name="unitstatuscount_key")]

    def __str__(self) -> str:
        return f"{self.pipeline} {self.status}: {self.count}"


class FailureGroupCount(models.Model):
    """Visible failed units per pipeline and the job they failed at (`FAILED_AT_JOB`), for
    the failure groups: the sum of `count` over a pipeline's and job's rows.

    Kept like `UnitStatusCount`, by triggers on the unit table (migration 0020) that
    append +1 and -1 rows, folded by `unit_status_counts_fold`; so the groups cost a few
    rows however many failures the history holds. Their latest failure is read through
    the index `unit_failure_group_last`. The same caveat holds: a later migration that
    rebuilds the unit table on SQLite must run 0020's trigger SQL again."""

    pipeline = models.CharField(max_length=40)
    job = models.CharField(max_length=255)
    count = models.BigIntegerField(default=0)

    class Meta:
        indexes = [models.Index(fields=["pipeline", "job"], name="failuregroupcount_key")]

    def __str__(self) -> str:
        return f"{self.pipeline} {self.job}: {self.count}"


# --- Monthly analytics rollups ---------------------------------------------------------
# The same figures as StageDuration and FailureCount (and, below, DecisionWait) added up
# per calendar month (`month` is its first day), written together with the daily rows: a
# year is read as about twelve
# rows per group instead of 365, and histograms add up exactly, so a period's medians and
# 90th percentiles are the same read either way.


class MonthlyStageDuration(DurationHistogram):
    """Time units spent in one microservice group, by the month the group ended."""

    pipeline = models.CharField(max_length=40)
    group = models.CharField(max_length=255)
    month = models.DateField()

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "group", "month"], name="monthlystage_pipeline_group_month"
            )
        ]
        indexes = [models.Index(fields=["month", "group", "pipeline"], name="monthlystage_month")]

    def __str__(self) -> str:
        return f"{self.group} {self.pipeline} {self.month:%Y-%m}"


class MonthlyFailureCount(models.Model):
    """Runs and failures of a group (job "") or a job, per month."""

    pipeline = models.CharField(max_length=40)
    group = models.CharField(max_length=255)
    job = models.CharField(max_length=255, blank=True)
    month = models.DateField()
    runs = models.PositiveIntegerField(default=0)
    failures = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "group", "job", "month"], name="monthlyfailure_key"
            )
        ]
        indexes = [
            models.Index(
                fields=["month", "group", "job", "pipeline", "runs", "failures"],
                name="monthlyfailure_month",
            )
        ]

    def __str__(self) -> str:
        return f"{self.group}/{self.job} {self.pipeline} {self.month:%Y-%m}"


class MonthlyDecisionWait(DurationHistogram):
    """Time units waited for a person at one decision, by the month the wait ended (the
    same sums as `DecisionWait`, so a year of waits is about twelve rows per decision)."""

    pipeline = models.CharField(max_length=40)
    decision = models.CharField(max_length=255)
    month = models.DateField()
    observed_count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["pipeline", "decision", "month"], name="monthlywait_pipeline_month"
            )
        ]
        indexes = [models.Index(fields=["month"], name="monthlywait_month")]

    def __str__(self) -> str:
        return f"{self.decision} {self.pipeline} {self.month:%Y-%m}"


class UserPreference(models.Model):
    """What a signed-in user chose for themselves and keeps across browsers and logins."""

    user = models.OneToOneField("auth.User", on_delete=models.CASCADE, related_name="preference")
    # A code from settings.LANGUAGES; empty follows the browser (and the picker's cookie).
    language = models.CharField(max_length=10, blank=True)

    def __str__(self) -> str:
        return f"{self.user} ({self.language or 'browser language'})"


# --- Ingest runs ------------------------------------------------------------------------
# A backlog of transfers moved through the pipelines (`dashboard.services.ingest`). The
# database is the record: every item's state changes by a conditional UPDATE, and an item
# is claimed (queued -> starting) and committed before the upstream start, so a worker
# killed at any moment never starts an item twice (docs/ingest-runs.md).


class IngestRun(models.Model):
    """One folder of a transfer source, moved item by item through some pipelines."""

    class Status(models.TextChoices):
        QUEUED = "queued", _("Queued")
        RUNNING = "running", _("Running")
        PAUSED = "paused", _("Paused")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(max_length=200)
    source_location = models.CharField(max_length=36)
    # The folder, relative to the location, as raw bytes (names need not be UTF-8).
    path = models.BinaryField()
    path_shown = models.TextField(blank=True)
    # Pipeline slugs, and the processing configuration to use on each {slug: name}.
    pipelines = models.JSONField(default=list)
    processing_configs = models.JSONField(default=dict, blank=True)
    transfer_type = models.CharField(max_length=40, default="standard")
    # `{n}` (format specs allowed, `{n:04}`) is the item's number, `{name}` its name.
    accession = models.CharField(max_length=255, blank=True)
    auto_approve = models.BooleanField(default=True)
    max_in_flight = models.PositiveSmallIntegerField(default=2)
    # Starts only happen between these times, read in each pipeline's time zone; an end
    # before the start spans midnight. Both empty: any time.
    window_start = models.TimeField(null=True, blank=True)
    window_end = models.TimeField(null=True, blank=True)
    # 1: the folder's children are the items; 2: its grandchildren.
    depth = models.PositiveSmallIntegerField(default=1)
    watch = models.BooleanField(default=False)
    settle_seconds = models.PositiveIntegerField(default=600)
    hide_when_stored = models.BooleanField(default=False)
    skip_existing = models.BooleanField(default=True)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.QUEUED)
    # Why pipelines receive nothing now, {slug: reason}, written by each scheduling cycle.
    waits = models.JSONField(default=dict, blank=True)
    # Children of a watched folder not yet settled: {base64 name: [signature, since]}.
    watch_pending = models.JSONField(default=dict, blank=True)
    scan_error = models.TextField(blank=True)
    scanned_at = models.DateTimeField(null=True, blank=True)
    # The next `{n}`: items are numbered in the order they are queued.
    next_number = models.PositiveIntegerField(default=1)
    created_by = models.ForeignKey(
        "auth.User", null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_by_name = models.CharField(max_length=150, blank=True)
    created_at = models.DateTimeField()
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    # The last time an item of this run was stored or failed (the stalled alert).
    last_progress_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["status"], name="ingestrun_status")]
        permissions = [("run_ingest", "Can start and steer ingest runs")]

    def __str__(self) -> str:
        return f"ingest run {self.name} ({self.status})"

    @property
    def active(self) -> bool:
        return self.status in (self.Status.QUEUED, self.Status.RUNNING)


class IngestItem(models.Model):
    """One child of a run's folder, and the transfer it became."""

    class State(models.TextChoices):
        QUEUED = "queued", _("Queued")
        STARTING = "starting", _("Starting")
        PROCESSING = "processing", _("Processing")
        WAITING = "waiting", _("Waiting for a decision")
        STORED = "stored", _("Stored")
        FAILED = "failed", _("Failed")
        SKIPPED = "skipped", _("Skipped")

    run = models.ForeignKey(IngestRun, on_delete=models.CASCADE, related_name="items")
    path = models.BinaryField()
    path_shown = models.TextField()
    name = models.CharField(max_length=255)
    number = models.PositiveIntegerField()
    accession = models.CharField(max_length=255, blank=True)
    state = models.CharField(max_length=10, choices=State.choices, default=State.QUEUED)
    pipeline = models.CharField(max_length=40, blank=True)
    transfer_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    sip_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    aip_uuid = models.CharField(max_length=36, null=True, blank=True)  # noqa: DJ001
    aip_location = models.CharField(max_length=36, blank=True)
    # Starts claimed (each one a call to the workflow service at most).
    attempts = models.PositiveSmallIntegerField(default=0)
    # Times an operator asked for this failed item to run again.
    failed_retries = models.PositiveSmallIntegerField(default=0)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    failed_job = models.CharField(max_length=255, blank=True)
    failed_at = models.DateTimeField(null=True, blank=True)
    reason = models.TextField(blank=True)
    # A start that failed before reaching the service waits until then to go again.
    retry_at = models.DateTimeField(null=True, blank=True)
    # hide_when_stored: the workflow service hid the transfer and the SIP.
    hidden_upstream = models.BooleanField(default=False)

    class Meta:
        ordering = ["number", "id"]
        constraints = [
            models.UniqueConstraint(fields=["run", "path"], name="ingestitem_run_path"),
        ]
        indexes = [
            # The run page's counts and filters, and the scheduler's next queued items.
            models.Index(fields=["run", "state", "number"], name="ingestitem_run_state"),
            # In flight per pipeline, across runs (the metrics).
            models.Index(
                fields=["pipeline", "state"],
                name="ingestitem_in_flight",
                condition=models.Q(state__in=["starting", "processing", "waiting"]),
            ),
            models.Index(fields=["transfer_uuid"], name="ingestitem_transfer"),
            models.Index(fields=["name"], name="ingestitem_name"),
        ]

    def __str__(self) -> str:
        return f"{self.path_shown} ({self.state})"


IN_FLIGHT_STATES = (
    IngestItem.State.STARTING,
    IngestItem.State.PROCESSING,
    IngestItem.State.WAITING,
)
FINAL_ITEM_STATES = (IngestItem.State.STORED, IngestItem.State.FAILED, IngestItem.State.SKIPPED)
