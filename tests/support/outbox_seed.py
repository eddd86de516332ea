"""Prepare a worker's own database for a delivery test, in a subprocess:

    python -m tests.support.outbox_seed WEBHOOK_URL EMAIL_ADDRESS ALERTS

migrates it, adds the two channels as `alert_channel add` does, opens ALERTS alerts
with one "fired" message per channel each (the outbox a worker then sends), and prints
the webhook's signing secret. The alerts sit in a scope no rule evaluates and the other
rules are off, so the polls of the worker under test neither resolve them nor add
messages: the outbox is exactly what was seeded.
"""

from __future__ import annotations

import sys

import django


def main(webhook_url: str, email: str, alerts: int) -> None:
    django.setup()
    from django.core.management import call_command
    from django.utils import timezone

    from dashboard.models import Alert, AlertKind, AlertMessage, AlertRule
    from dashboard.services import alerts as alert_services

    call_command("migrate", "--noinput", verbosity=0)
    secret = alert_services.alert_channel_add(kind="webhook", target=webhook_url).secret
    alert_services.alert_channel_add(kind="email", target=email)
    rule = AlertRule.objects.get(kind=AlertKind.UNIT_FAILED, pipeline="")
    # The other rules would add messages of their own (a service stale between workers).
    AlertRule.objects.exclude(pk=rule.pk).update(enabled=False)
    now = timezone.now()
    for number in range(1, alerts + 1):
        alert = Alert.objects.create(
            rule=rule,
            kind=rule.kind,
            subject=f"unit:restart-test:{number}",
            scope="restart-test",
            title=f"Transfer restart-test-{number} failed at Normalize",
            opened_at=now,
            seen_at=now,
        )
        for channel in rule.channels.all():
            AlertMessage.objects.create(
                alert=alert,
                channel=channel,
                kind=AlertMessage.Kind.FIRED,
                created_at=now,
                next_attempt_at=now,
            )
    print(secret)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
