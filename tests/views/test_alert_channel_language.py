"""An admin chooses the language each alert channel's messages are written in."""

from __future__ import annotations

import pytest
from django.urls import reverse

from dashboard.models import AlertChannel, AuditEntry

pytestmark = pytest.mark.django_db


def test_an_admin_sets_a_channels_language_on_the_settings_page(admin_client_, operator):
    added = admin_client_.post(
        reverse("dashboard:alert-channel-add"),
        {"kind": "email", "target": "ops@example.org", "language": "fr"},
    )
    assert added.status_code == 200
    channel = AlertChannel.objects.get()
    assert channel.language == "fr"
    url = reverse("dashboard:alert-channel-language", args=[channel.pk])
    assert operator.post(url, {"language": "en"}).status_code == 403

    page = admin_client_.post(url, {"language": "en"}, follow=True).content.decode()

    assert "Messages to E-mail ops@example.org are written in English." in page
    channel.refresh_from_db()
    assert channel.language == "en"
    change = AuditEntry.objects.get(action="alert_channel_language")
    assert change.parameters == {"before": {"language": "fr"}, "after": {"language": "en"}}
    admin_client_.post(url, {"language": "xx"})
    channel.refresh_from_db()
    assert channel.language == "en"  # refused
