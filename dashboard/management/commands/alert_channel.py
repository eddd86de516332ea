"""`manage.py alert_channel add email ADDRESS | add webhook URL | add slack URL |
add apprise APPRISE-URL | list | remove ID | test ID | digest ID HOUR|off`: alert channels
from the shell.

A channel added here receives the default rules at once. A webhook's signing secret is
printed once, when it is added. An Apprise URL is a secret: it is printed (and listed)
only masked. `add ... --digest-hour 8` (or `digest ID 8` later) opts
the channel in to a daily digest at 08:00 (TIME_ZONE); `digest ID off` opts it out.
`add ... --language fr` (or `language ID fr` later) writes its messages in French; a
channel takes the site's LANGUAGE_CODE otherwise.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from dashboard.management.commands.wall_link import _shell_actor
from dashboard.models import AlertChannel
from dashboard.services import alerts


class Command(BaseCommand):
    help = "Add, list, remove or test the channels alerts are sent to."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        add = actions.add_parser("add", help="add a channel; it receives the default rules")
        add.add_argument("kind", choices=[k.value for k in AlertChannel.Kind])
        add.add_argument(
            "target", help="an e-mail address, an http(s) URL, or an Apprise URL (quote it)"
        )
        add.add_argument(
            "--digest-hour", type=_hour, default=None, help="also send a daily digest at HOUR"
        )
        add.add_argument(
            "--language", default=None, help="write its messages in this language (LANGUAGES)"
        )
        language = actions.add_parser("language", help="write a channel's messages in LANGUAGE")
        language.add_argument("id", type=int)
        language.add_argument("language")
        actions.add_parser("list", help="show every channel and how its last message went")
        remove = actions.add_parser("remove", help="remove a channel")
        remove.add_argument("id", type=int)
        test = actions.add_parser("test", help="send a test message and say if it arrived")
        test.add_argument("id", type=int)
        digest = actions.add_parser("digest", help="send a daily digest at HOUR, or 'off'")
        digest.add_argument("id", type=int)
        digest.add_argument("hour", type=_hour_or_off, help="0-23 (TIME_ZONE), or off")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "add":
                self._add(
                    options["kind"], options["target"], options["digest_hour"], options["language"]
                )
            elif action == "language":
                channel = alerts.alert_channel_language_set(
                    channel_id=options["id"],
                    language=options["language"],
                    actor_name=_shell_actor(),
                )
                self.stdout.write(f"Channel {channel.pk} writes in {channel.language}.")
            elif action == "remove":
                channel = alerts.alert_channel_remove(
                    channel_id=options["id"], actor_name=_shell_actor()
                )
                self.stdout.write(f"Removed channel {options['id']} ({channel}).")
            elif action == "test":
                self._test(options["id"])
            elif action == "digest":
                self._digest(options["id"], options["hour"])
            else:
                self._list()
        except alerts.AlertError as exc:
            raise CommandError(str(exc)) from None

    def _add(self, kind: str, target: str, digest_hour: int | None, language: str | None) -> None:
        added = alerts.alert_channel_add(
            kind=kind, target=target, language=language, actor_name=_shell_actor()
        )
        rules = added.channel.rules.count()
        self.stdout.write(
            f"Added channel {added.channel.pk}: {added.channel} ({rules} rules, "
            f"in {added.channel.language})."
        )
        if digest_hour is not None:
            self._digest(added.channel.pk, digest_hour)
        if added.secret:
            self.stderr.write("Its signing secret, shown only this once (X-Lookout-Signature):")
            self.stdout.write(added.secret)

    def _digest(self, channel_id: int, hour: int | None) -> None:
        alerts.alert_channel_digest_set(channel_id=channel_id, hour=hour, actor_name=_shell_actor())
        if hour is None:
            self.stdout.write(f"Channel {channel_id} gets no daily digest.")
        else:
            self.stdout.write(f"Channel {channel_id} gets a daily digest at {hour:02d}:00.")

    def _test(self, channel_id: int) -> None:
        outcome = alerts.alert_channel_test(channel_id=channel_id, actor_name=_shell_actor())
        if not outcome.delivered:
            raise CommandError(f"Not delivered: {outcome.error}")
        self.stdout.write(f"Delivered a test message to channel {channel_id}.")

    def _list(self) -> None:
        channels = list(AlertChannel.objects.order_by("id"))
        if not channels:
            self.stdout.write("No alert channels.")
            return
        for channel in channels:
            if channel.failing:
                state = f"FAILING: {channel.last_error}"
            elif channel.last_success_at:
                state = f"last delivered {channel.last_success_at:%Y-%m-%d %H:%M}"
            else:
                state = "nothing sent yet"
            digest = (
                "no digest"
                if channel.digest_hour is None
                else f"digest {channel.digest_hour:02d}:00"
            )
            self.stdout.write(
                f"{channel.pk}\t{channel.kind}\t{channel.target}\t"
                f"{channel.rules.count()} rules\t{digest}\t{state}"
            )


def _hour(text: str) -> int:
    try:
        hour = int(text)
    except ValueError:
        hour = -1
    if not 0 <= hour <= 23:
        raise argparse.ArgumentTypeError(f"{text!r} is not an hour from 0 to 23")
    return hour


def _hour_or_off(text: str) -> int | None:
    return None if text.lower() == "off" else _hour(text)
