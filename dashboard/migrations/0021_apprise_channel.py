from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("dashboard", "0020_kept_failure_groups"),
    ]

    operations = [
        migrations.AlterField(
            model_name="alertchannel",
            name="kind",
            field=models.CharField(
                choices=[
                    ("email", "E-mail"),
                    ("webhook", "Webhook (signed JSON)"),
                    ("slack", "Slack-compatible webhook"),
                    ("apprise", "Apprise URL (Teams, Matrix, Mattermost, ntfy, ...)"),
                ],
                max_length=10,
            ),
        ),
        migrations.AlterField(
            model_name="alertchannel",
            name="secret",
            field=models.CharField(blank=True, max_length=2000),
        ),
    ]
