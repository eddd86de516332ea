from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0020_kept_failure_groups")]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="hidden_upstream_at",
            field=models.DateTimeField(blank=True, null=True),
        ),
    ]
