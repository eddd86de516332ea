from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0028_unit_listed_progress")]

    operations = [
        migrations.AddIndex(
            model_name="unit",
            index=models.Index(
                condition=models.Q(hidden_upstream_at__isnull=True),
                fields=["pipeline", "first_seen_at"],
                name="unit_listed_upstream",
            ),
        ),
    ]
