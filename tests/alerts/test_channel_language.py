"""Each channel's messages are written in its own language, whatever the site's.

The numbers and dates follow the channel's language with Django's own formats (no
catalog of Lookout's needed); the words follow it through a small French catalog
compiled for the test.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError
from django.utils import timezone, translation

from dashboard.lib import alert_words
from dashboard.models import Alert, AlertChannel, AlertMessage, AlertRule
from dashboard.services import alerts
from tests.support.catalogs import install_catalog

pytestmark = pytest.mark.django_db

GIB = 1024**3
OPENED = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)
FRENCH = r"""
msgid "%(store)s is %(percent)s %% full"
msgstr "%(store)s est plein à %(percent)s %%"

msgid "Space %(name)s"
msgstr "Espace %(name)s"

msgid "Since: %(moment)s"
msgstr "Depuis : %(moment)s"

msgid "%(used)s of %(limit)s (%(percent)s)"
msgstr "%(used)s sur %(limit)s (%(percent)s)"

msgctxt "binary size unit"
msgid "GiB"
msgstr "Gio"
"""


def _space_full_alert() -> Alert:
    alerts.alert_rules_ensure_defaults()
    words = {
        "what": alert_words.STORAGE_FULL,
        "store": "space",
        "name": "/var/archive",
        "used": 930 * GIB,
        "limit": 1000 * GIB,
    }
    title, detail = alert_words.alert_text(words) or ("", "")
    return Alert.objects.create(
        rule=AlertRule.objects.get(kind="storage_full"),
        kind="storage_full",
        subject="space:1",
        scope="storage",
        title=title,
        detail=detail,
        words=words,
        opened_at=OPENED,
        seen_at=OPENED,
    )


def _message(alert: Alert, language: str) -> AlertMessage:
    channel = alerts.alert_channel_add(
        kind="webhook", target=f"https://hooks.example.org/{language}", language=language
    ).channel
    now = timezone.now()
    return AlertMessage.objects.create(
        alert=alert, channel=channel, kind="fired", created_at=now, next_attempt_at=now
    )


def test_a_french_channel_gets_french_numbers_and_dates():
    alert = _space_full_alert()

    french = alerts.message_render(_message(alert, "fr"))
    english = alerts.message_render(_message(alert, "en"))

    assert "930,0 Gio sur 1000,0 Gio (93,0 %)" in french.text
    assert "1 janvier 2030 12:00:00 UTC" in french.text
    assert "930.0 GiB of 1000.0 GiB (93.0 %)" in english.text
    assert "Jan. 1, 2030 12:00:00 UTC" in english.text
    assert (french.payload["language"], english.payload["language"]) == ("fr", "en")
    # The stored title stays in the site's language; rendering changed nothing.
    alert.refresh_from_db()
    assert alert.detail == "930.0 GiB of 1000.0 GiB (93.0 %)"


def test_a_french_channel_gets_french_words(tmp_path: Path, settings):
    install_catalog(tmp_path, settings, "fr", FRENCH)
    alert = _space_full_alert()

    french = alerts.message_render(_message(alert, "fr"))

    assert french.subject == "[Lookout] Espace /var/archive est plein à 93 %"
    assert "930,0 Gio sur 1000,0 Gio (93,0 %)" in french.text
    assert "Depuis : 1 janvier 2030 12:00:00 UTC" in french.text
    assert french.payload["alert"]["title"] == "Espace /var/archive est plein à 93 %"
    # Whatever the language active around the delivery, the channel's is used.
    with translation.override("en"):
        assert alerts.message_render(_message(alert, "fr")).subject == french.subject
    assert "Space /var/archive is 93 % full" in alerts.message_render(_message(alert, "en")).text


def test_delivery_sends_each_channel_its_own_language(sent):
    alert = _space_full_alert()
    _message(alert, "fr")
    _message(alert, "en")

    alerts.outbox_deliver_due()

    bodies = {call["url"].rsplit("/", 1)[1]: call["body"].decode() for call in sent}
    assert "930,0 Gio" in bodies["fr"]
    assert "930.0 GiB" in bodies["en"]


def test_an_alert_made_before_words_were_kept_is_sent_as_stored():
    alert = _space_full_alert()
    Alert.objects.filter(pk=alert.pk).update(words={}, title="Old title", detail="Old detail")
    alert.refresh_from_db()

    rendered = alerts.message_render(_message(alert, "fr"))

    assert rendered.text.startswith("Old title\n\nOld detail")


def test_a_channel_takes_the_site_language_unless_told(settings):
    settings.LANGUAGE_CODE = "fr"
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    assert channel.language == "fr"


def test_a_language_outside_languages_is_refused(settings):
    settings.LANGUAGES = [("en", "English"), ("fr", "French")]
    with pytest.raises(alerts.AlertError, match="not one of Lookout's languages"):
        alerts.alert_channel_add(kind="email", target="ops@example.org", language="de")
    assert not AlertChannel.objects.exists()


def test_the_shell_command_sets_a_channels_language(capsys):
    call_command("alert_channel", "add", "email", "ops@example.org", "--language", "fr")
    channel = AlertChannel.objects.get()
    assert channel.language == "fr"
    assert "in fr" in capsys.readouterr().out
    call_command("alert_channel", "language", str(channel.pk), "en")
    channel.refresh_from_db()
    assert channel.language == "en"
    with pytest.raises(CommandError, match="not one of Lookout's languages"):
        call_command("alert_channel", "language", str(channel.pk), "xx")


def test_a_page_reads_an_alert_in_the_readers_language(tmp_path: Path, settings):
    install_catalog(tmp_path, settings, "fr", FRENCH)
    alert = _space_full_alert()

    with translation.override("fr"):
        assert alert.shown_title == "Espace /var/archive est plein à 93 %"
        assert alert.shown_detail == "930,0 Gio sur 1000,0 Gio (93,0 %)"
    assert alert.shown_title == alert.title == "Space /var/archive is 93 % full"
