from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dashboard", "0020_kept_failure_groups"),
    ]

    operations = [
        migrations.AlterField(
            model_name="auditentry",
            name="outcome",
            field=models.CharField(
                choices=[
                    ("pending", "Pending"),
                    ("queued", "Queued, outcome to follow"),
                    ("done", "Done"),
                    ("refused", "Refused by the upstream service"),
                    ("failed", "Upstream service unreachable or broken"),
                    ("timed_out", "Upstream service did not answer in time"),
                    ("not_done", "Not done (seen by a later poll)"),
                ],
                default="pending",
                max_length=10,
            ),
        ),
    ]
