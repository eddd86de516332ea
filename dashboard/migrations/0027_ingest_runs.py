# Ingest runs and their items (docs/ingest-runs.md); two alert kinds for them.

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dashboard", "0023_audit_outcome_not_done"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AlterField(
            model_name="alert",
            name="kind",
            field=models.CharField(
                choices=[
                    ("unit_failed", "A unit failed"),
                    ("unit_waiting", "A unit waits for a decision too long"),
                    ("unit_stuck", "A unit makes no progress"),
                    ("service_stale", "An upstream service is stale"),
                    ("storage_full", "A storage space or location is nearly full"),
                    ("fixity_failed", "A fixity check failed"),
                    ("ingest_finished", "An ingest run finished"),
                    ("ingest_stalled", "An ingest run is stalled"),
                ],
                max_length=20,
            ),
        ),
        migrations.AlterField(
            model_name="alertrule",
            name="kind",
            field=models.CharField(
                choices=[
                    ("unit_failed", "A unit failed"),
                    ("unit_waiting", "A unit waits for a decision too long"),
                    ("unit_stuck", "A unit makes no progress"),
                    ("service_stale", "An upstream service is stale"),
                    ("storage_full", "A storage space or location is nearly full"),
                    ("fixity_failed", "A fixity check failed"),
                    ("ingest_finished", "An ingest run finished"),
                    ("ingest_stalled", "An ingest run is stalled"),
                ],
                max_length=20,
            ),
        ),
        migrations.CreateModel(
            name="IngestRun",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("name", models.CharField(max_length=200)),
                ("source_location", models.CharField(max_length=36)),
                ("path", models.BinaryField()),
                ("path_shown", models.TextField(blank=True)),
                ("pipelines", models.JSONField(default=list)),
                ("processing_configs", models.JSONField(blank=True, default=dict)),
                ("transfer_type", models.CharField(default="standard", max_length=40)),
                ("accession", models.CharField(blank=True, max_length=255)),
                ("auto_approve", models.BooleanField(default=True)),
                ("max_in_flight", models.PositiveSmallIntegerField(default=2)),
                ("window_start", models.TimeField(blank=True, null=True)),
                ("window_end", models.TimeField(blank=True, null=True)),
                ("depth", models.PositiveSmallIntegerField(default=1)),
                ("watch", models.BooleanField(default=False)),
                ("settle_seconds", models.PositiveIntegerField(default=600)),
                ("hide_when_stored", models.BooleanField(default=False)),
                ("skip_existing", models.BooleanField(default=True)),
                (
                    "status",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("running", "Running"),
                            ("paused", "Paused"),
                            ("finished", "Finished"),
                            ("cancelled", "Cancelled"),
                        ],
                        default="queued",
                        max_length=10,
                    ),
                ),
                ("waits", models.JSONField(blank=True, default=dict)),
                ("watch_pending", models.JSONField(blank=True, default=dict)),
                ("scan_error", models.TextField(blank=True)),
                ("scanned_at", models.DateTimeField(blank=True, null=True)),
                ("next_number", models.PositiveIntegerField(default=1)),
                ("created_by_name", models.CharField(blank=True, max_length=150)),
                ("created_at", models.DateTimeField()),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("last_progress_at", models.DateTimeField(blank=True, null=True)),
                (
                    "created_by",
                    models.ForeignKey(
                        blank=True,
                        null=True,
                        on_delete=django.db.models.deletion.SET_NULL,
                        related_name="+",
                        to=settings.AUTH_USER_MODEL,
                    ),
                ),
            ],
            options={
                "ordering": ["-created_at", "-id"],
                "permissions": [("run_ingest", "Can start and steer ingest runs")],
            },
        ),
        migrations.CreateModel(
            name="IngestItem",
            fields=[
                (
                    "id",
                    models.BigAutoField(
                        auto_created=True, primary_key=True, serialize=False, verbose_name="ID"
                    ),
                ),
                ("path", models.BinaryField()),
                ("path_shown", models.TextField()),
                ("name", models.CharField(max_length=255)),
                ("number", models.PositiveIntegerField()),
                ("accession", models.CharField(blank=True, max_length=255)),
                (
                    "state",
                    models.CharField(
                        choices=[
                            ("queued", "Queued"),
                            ("starting", "Starting"),
                            ("processing", "Processing"),
                            ("waiting", "Waiting for a decision"),
                            ("stored", "Stored"),
                            ("failed", "Failed"),
                            ("skipped", "Skipped"),
                        ],
                        default="queued",
                        max_length=10,
                    ),
                ),
                ("pipeline", models.CharField(blank=True, max_length=40)),
                ("transfer_uuid", models.CharField(blank=True, max_length=36, null=True)),
                ("sip_uuid", models.CharField(blank=True, max_length=36, null=True)),
                ("aip_uuid", models.CharField(blank=True, max_length=36, null=True)),
                ("aip_location", models.CharField(blank=True, max_length=36)),
                ("attempts", models.PositiveSmallIntegerField(default=0)),
                ("failed_retries", models.PositiveSmallIntegerField(default=0)),
                ("started_at", models.DateTimeField(blank=True, null=True)),
                ("finished_at", models.DateTimeField(blank=True, null=True)),
                ("failed_job", models.CharField(blank=True, max_length=255)),
                ("failed_at", models.DateTimeField(blank=True, null=True)),
                ("reason", models.TextField(blank=True)),
                ("retry_at", models.DateTimeField(blank=True, null=True)),
                ("hidden_upstream", models.BooleanField(default=False)),
                (
                    "run",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="items",
                        to="dashboard.ingestrun",
                    ),
                ),
            ],
            options={
                "ordering": ["number", "id"],
            },
        ),
        migrations.AddIndex(
            model_name="ingestrun",
            index=models.Index(fields=["status"], name="ingestrun_status"),
        ),
        migrations.AddIndex(
            model_name="ingestitem",
            index=models.Index(fields=["run", "state", "number"], name="ingestitem_run_state"),
        ),
        migrations.AddIndex(
            model_name="ingestitem",
            index=models.Index(
                condition=models.Q(("state__in", ["starting", "processing", "waiting"])),
                fields=["pipeline", "state"],
                name="ingestitem_in_flight",
            ),
        ),
        migrations.AddIndex(
            model_name="ingestitem",
            index=models.Index(fields=["transfer_uuid"], name="ingestitem_transfer"),
        ),
        migrations.AddIndex(
            model_name="ingestitem",
            index=models.Index(fields=["name"], name="ingestitem_name"),
        ),
        migrations.AddConstraint(
            model_name="ingestitem",
            constraint=models.UniqueConstraint(fields=("run", "path"), name="ingestitem_run_path"),
        ),
    ]
