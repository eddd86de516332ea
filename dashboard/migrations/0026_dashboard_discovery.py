from django.db import migrations, models

# Nullable columns: SQLite adds them in place (a rebuilt table would lose its triggers).
OUTCOMES = [
    ("pending", "Pending"),
    ("queued", "Queued, outcome to follow"),
    ("sent", "Sent, outcome to follow"),
    ("done", "Done"),
    ("refused", "Refused by the upstream service"),
    ("failed", "Upstream service unreachable or broken"),
    ("timed_out", "Upstream service did not answer in time"),
    ("not_done", "Not done (seen by a later poll)"),
]
PERMISSIONS = [
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


class Migration(migrations.Migration):
    # After dash-sim's outcome migration (same number: the lead renumbers at merge).
    dependencies = [("dashboard", "0025_alert_channel_language")]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="hidden_upstream_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="unit",
            name="decision_job_uuid",
            field=models.CharField(blank=True, max_length=36, null=True),
        ),
        migrations.AddField(
            model_name="unit",
            name="decision_choices",
            field=models.TextField(blank=True, null=True),
        ),
        migrations.AlterField(
            model_name="auditentry",
            name="outcome",
            field=models.CharField(choices=OUTCOMES, default="pending", max_length=10),
        ),
        migrations.AlterModelOptions(
            name="auditentry",
            options={"ordering": ["-requested_at", "-id"], "permissions": PERMISSIONS},
        ),
    ]
