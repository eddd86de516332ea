from django.db import migrations, models

# Nullable: SQLite adds the column in place (a rebuilt table would lose its triggers).


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0027_ingest_runs")]

    operations = [
        migrations.AddField(
            model_name="unit",
            name="listed_progress",
            field=models.CharField(blank=True, max_length=16, null=True),
        ),
    ]
