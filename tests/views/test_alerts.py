"""The alerts pages: list and detail for every role, silencing, settings for admins."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from dashboard.models import Alert, AlertChannel, AlertRule, AuditEntry
from dashboard.services import alerts

pytestmark = pytest.mark.django_db


def _alert(title="Transfer t1 failed at Normalize", **fields) -> Alert:
    alerts.alert_rules_ensure_defaults()
    values = {
        "rule": AlertRule.objects.get(kind="unit_failed"),
        "kind": "unit_failed",
        "subject": f"unit:default:{title}",
        "scope": "workflow:default",
        "pipeline": "default",
        "title": title,
        "opened_at": timezone.now(),
        "seen_at": timezone.now(),
    }
    values.update(fields)
    return Alert.objects.create(**values)


def test_anonymous_users_go_to_the_login_page(client):
    answer = client.get(reverse("dashboard:alert-list"))
    assert answer.status_code == 302 and "/login/" in answer["Location"]


def test_a_user_without_a_role_is_refused(no_role):
    assert no_role.get(reverse("dashboard:alert-list")).status_code == 403


def test_viewers_see_open_alerts_by_default_and_can_filter(viewer):
    _alert("Open one")
    _alert("Resolved one", state="resolved", resolved_at=timezone.now())
    _alert("Quiet one", silenced_until=timezone.now() + timedelta(hours=1))
    page = viewer.get(reverse("dashboard:alert-list")).content.decode()
    assert "Open one" in page and "Resolved one" not in page and "Quiet one" not in page
    page = viewer.get(reverse("dashboard:alert-list"), {"state": "resolved"}).content.decode()
    assert "Resolved one" in page and "Open one" not in page
    page = viewer.get(reverse("dashboard:alert-list"), {"state": "silenced"}).content.decode()
    assert "Quiet one" in page


def test_the_htmx_refresh_returns_only_the_live_region(viewer):
    _alert("Open one")
    answer = viewer.get(reverse("dashboard:alert-list"), HTTP_HX_REQUEST="true")
    body = answer.content.decode()
    assert body.lstrip().startswith('<div id="alerts-live"') and "Open one" in body


def test_a_viewer_sees_an_alert_but_may_not_silence_it(viewer):
    alert = _alert()
    page = viewer.get(reverse("dashboard:alert-detail", args=[alert.pk])).content.decode()
    assert alert.title in page and "Send nothing about this alert" not in page
    answer = viewer.post(reverse("dashboard:alert-silence", args=[alert.pk]), {"hours": 4})
    assert answer.status_code == 403


def test_an_operator_silences_an_alert_and_it_is_audited(operator):
    alert = _alert()
    answer = operator.post(reverse("dashboard:alert-silence", args=[alert.pk]), {"hours": 4})
    assert answer.status_code == 302
    alert.refresh_from_db()
    assert alert.shown_state == "silenced" and alert.silenced_by == "otto"
    assert AuditEntry.objects.get(action="alert_silence").actor_name == "otto"


def test_a_signed_link_from_a_message_silences_after_a_confirmation(client):
    alert = _alert()
    token = alerts.silence_token(alert_id=alert.pk, channel_id=7)
    url = reverse("dashboard:alert-silence-link", args=[token])
    assert client.get(url).status_code == 200
    alert.refresh_from_db()
    assert alert.silenced_until is None  # a GET (a mail scanner) changes nothing
    assert client.post(url, {"hours": 24}).status_code == 200
    alert.refresh_from_db()
    assert alert.shown_state == "silenced"
    assert client.get(url[:-3] + "xx/").status_code == 404


def test_the_settings_page_is_for_admins(operator, admin_client_):
    assert operator.get(reverse("dashboard:alert-settings")).status_code == 403
    page = admin_client_.get(reverse("dashboard:alert-settings")).content.decode()
    assert "A unit failed" in page and "Add a channel" in page


def test_an_admin_adds_a_webhook_and_sees_its_secret_once(admin_client_):
    answer = admin_client_.post(
        reverse("dashboard:alert-channel-add"),
        {"kind": "webhook", "target": "https://hooks.example.org/x"},
    )
    channel = AlertChannel.objects.get()
    assert channel.secret in answer.content.decode()
    assert channel.rules.count() == 8
    assert (
        channel.secret
        not in admin_client_.get(reverse("dashboard:alert-settings")).content.decode()
    )
    assert AuditEntry.objects.filter(action="alert_channel_add").count() == 1


def test_a_bad_channel_address_is_refused_with_a_message(admin_client_):
    answer = admin_client_.post(
        reverse("dashboard:alert-channel-add"), {"kind": "email", "target": "nobody"}
    )
    assert answer.status_code == 400 and "is not an e-mail address" in answer.content.decode()


def test_an_admin_changes_a_rule_and_it_is_audited(admin_client_):
    alerts.alert_rules_ensure_defaults()
    rule = AlertRule.objects.get(kind="unit_waiting")
    admin_client_.post(reverse("dashboard:alert-rule-update", args=[rule.pk]), {"threshold": 48})
    rule.refresh_from_db()
    assert rule.threshold == 48 and not rule.enabled
    entry = AuditEntry.objects.get(action="alert_rule_change")
    assert entry.parameters["after"] == {"enabled": False, "threshold": 48}


def test_removing_a_channel_asks_first(admin_client_):
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    url = reverse("dashboard:alert-channel-remove", args=[channel.pk])
    assert "Remove this channel?" in admin_client_.get(url).content.decode()
    assert AlertChannel.objects.exists()
    admin_client_.post(url)
    assert not AlertChannel.objects.exists()


def test_an_admin_opts_a_channel_in_to_the_daily_digest_and_out_again(admin_client_, operator):
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    url = reverse("dashboard:alert-channel-digest", args=[channel.pk])
    assert operator.post(url, {"hour": "8"}).status_code == 403
    answer = admin_client_.post(url, {"hour": "8"}, follow=True).content.decode()
    assert "A daily digest goes to E-mail ops@example.org at 08:00." in answer
    assert '<option value="8" selected>08:00</option>' in answer
    assert "none sent yet" in answer
    assert AlertChannel.objects.get().digest_hour == 8
    assert admin_client_.post(url, {"hour": "24"}).status_code == 302
    assert AlertChannel.objects.get().digest_hour == 8  # refused
    admin_client_.post(url, {"hour": ""})
    assert AlertChannel.objects.get().digest_hour is None
    changes = AuditEntry.objects.filter(action="alert_channel_digest").order_by("id")
    assert [e.parameters["after"] for e in changes] == [{"digest_hour": 8}, {"digest_hour": None}]


def test_the_settings_page_shows_the_day_of_the_last_digest_sent(admin_client_, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    channel = alerts.alert_channel_add(kind="email", target="ops@example.org").channel
    alerts.alert_channel_digest_set(channel_id=channel.pk, hour=0)
    alerts.digests_queue()
    alerts.outbox_deliver_due()
    page = admin_client_.get(reverse("dashboard:alert-settings")).content.decode()
    assert f"last sent for {timezone.localdate():%Y-%m-%d}" in page


def test_a_form_without_the_csrf_token_is_refused(db):
    from tests.support.users import make_user

    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("adele", "admin"))
    answer = client.post(
        reverse("dashboard:alert-channel-add"), {"kind": "email", "target": "a@b.c"}
    )
    assert answer.status_code == 403
    assert not AlertChannel.objects.exists()


def test_the_overview_and_the_wall_show_open_alerts_but_not_baseline_ones(viewer):
    _alert("Announced failure")
    _alert("Old failure", baseline=True)
    home = viewer.get(reverse("dashboard:home")).content.decode()
    assert "Open alerts" in home and "Announced failure" in home and "Old failure" not in home
    wall = viewer.get(reverse("dashboard:wall")).content.decode()
    assert 'data-open-alerts="1"' in wall and "Announced failure" in wall
