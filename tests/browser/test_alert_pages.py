"""The alerts page and the settings page in headless Chromium, with a screenshot each."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.models import Alert, AlertRule
from dashboard.services import alerts
from tests.browser.conftest import log_in, screenshot
from tests.support.users import make_user

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_admin_reads_the_alerts_silences_one_and_manages_channels(page, live_server):
    make_user("ada", "admin")
    alerts.alert_rules_ensure_defaults()
    alerts.alert_channel_add(kind="email", target="ops@example.org")
    rule = AlertRule.objects.get(kind="unit_failed")
    now = timezone.now()
    for number, job in enumerate(["Normalize", "Virus scan"], start=1):
        Alert.objects.create(
            rule=rule,
            kind=rule.kind,
            subject=f"unit:default:{number}",
            scope="workflow:default",
            pipeline="default",
            title=f"Transfer batch_{number:02d} failed at {job}",
            opened_at=now - timedelta(minutes=number * 7),
            seen_at=now,
        )
    Alert.objects.create(
        rule=rule,
        kind=rule.kind,
        subject="unit:default:old",
        scope="workflow:default",
        pipeline="default",
        title="Transfer old_batch failed at Extract",
        opened_at=now - timedelta(days=3),
        seen_at=now,
        baseline=True,
    )
    log_in(page, live_server.url, "ada")
    page.goto(f"{live_server.url}/alerts/")
    rows = page.locator("#alerts-live tbody tr")
    assert rows.count() == 3
    assert "(baseline)" in rows.nth(2).inner_text()
    screenshot(page, "alerts-list")

    page.get_by_role("link", name="Transfer batch_01 failed at Normalize").click()
    page.get_by_label("Send nothing about this alert for").select_option("4")
    page.get_by_role("button", name="Apply").click()
    assert "Silenced until" in page.locator(".messages").inner_text()

    page.goto(f"{live_server.url}/alerts/?state=silenced")
    assert page.locator("#alerts-live tbody tr").count() == 1
    page.goto(f"{live_server.url}/alerts/settings/")
    assert "ops@example.org" in page.locator(".alert-channels").inner_text()
    screenshot(page, "alerts-settings")

    # Opt the channel in to the daily digest at 07:00.
    page.get_by_label("Daily digest to ops@example.org at").select_option("7")
    page.locator(".alert-channels form[action$='/digest/']").get_by_role("button").click()
    assert "at 07:00" in page.locator(".messages").inner_text()
    assert page.get_by_label("Daily digest to ops@example.org at").input_value() == "7"
    assert "none sent yet" in page.locator(".alert-channels").inner_text()
    screenshot(page, "alerts-settings-digest")

    # Its messages written in French from now on.
    page.get_by_label("Language of the messages to ops@example.org").select_option("fr")
    page.locator(".alert-channels form[action$='/language/']").get_by_role("button").click()
    assert "are written in French" in page.locator(".messages").inner_text()
    assert page.get_by_label("Language of the messages to ops@example.org").input_value() == "fr"
    screenshot(page, "alerts-settings-language")


def test_an_admin_adds_an_apprise_channel_and_sees_its_url_only_masked(page, live_server):
    make_user("ada", "admin")
    secret_url = "mmosts://chat.example.org/8rq3mzgxxjfs8gdw7yb6he5gqw"
    log_in(page, live_server.url, "ada")
    page.goto(f"{live_server.url}/alerts/settings/")
    page.get_by_label("Kind").select_option("apprise")
    page.get_by_label("Target").fill(secret_url)
    page.get_by_role("button", name="Add channel").click()

    added = page.locator("#added-heading").inner_text()
    assert "mmosts://chat.example.org/8...w/" in added
    assert "8rq3mzgxxjfs8gdw7yb6he5gqw" not in page.content()
    assert page.get_by_label("Target").input_value() == ""  # not echoed back either
    screenshot(page, "alerts-settings-apprise")

    page.goto(f"{live_server.url}/alerts/settings/")
    channels = page.locator(".alert-channels").inner_text()
    assert "Apprise URL" in channels and "mmosts://chat.example.org/8...w/" in channels
    assert "8rq3mzgxxjfs8gdw7yb6he5gqw" not in page.content()
