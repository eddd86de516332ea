"""`manage.py wall_link create NAME | revoke NAME | list`: wall-screen links from the shell.

`create` prints the screen's full address (from LOOKOUT_PUBLIC_URL); the token in it is
not stored anywhere, so the address cannot be shown again later.
"""

from __future__ import annotations

import getpass
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils import timezone

from dashboard.models import WallLink
from dashboard.services import wall_links


def _shell_actor() -> str:
    try:
        return f"shell:{getpass.getuser()}"
    except (KeyError, OSError):  # no user name in a bare container
        return "shell"


class Command(BaseCommand):
    help = "Create, revoke or list the read-only links that open the wall screen."

    def add_arguments(self, parser: CommandParser) -> None:
        actions = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
        create = actions.add_parser("create", help="make a link and print its address")
        create.add_argument("name", help="where the screen is, e.g. 'Operations room'")
        create.add_argument(
            "--language",
            default=settings.LANGUAGE_CODE,
            help="the wall's language, a code from LANGUAGES (default: %(default)s)",
        )
        revoke = actions.add_parser("revoke", help="stop a link from opening the wall")
        revoke.add_argument("name")
        actions.add_parser("list", help="show every link and whether it is active")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        try:
            if action == "create":
                self._create(options["name"], options["language"])
            elif action == "revoke":
                self._revoke(options["name"])
            else:
                self._list()
        except wall_links.WallLinkError as exc:
            raise CommandError(str(exc)) from None

    def _create(self, name: str, language: str) -> None:
        created = wall_links.wall_link_create(
            name=name, language=language, actor_name=_shell_actor()
        )
        self.stderr.write(
            f"Created wall link {created.link.name!r}. Its address is shown only this once:"
        )
        self.stdout.write(wall_links.wall_link_url(token=created.token))

    def _revoke(self, name: str) -> None:
        link = wall_links.wall_link_revoke(name=name, actor_name=_shell_actor())
        self.stdout.write(f"Revoked wall link {link.name!r}.")

    def _list(self) -> None:
        links = list(WallLink.objects.all())
        if not links:
            self.stdout.write("No wall links.")
            return
        for link in links:
            if link.revoked_at:
                state = f"revoked {timezone.localtime(link.revoked_at):%Y-%m-%d %H:%M}"
            else:
                state = "active"
            used = (
                f"last used {timezone.localtime(link.last_used_at):%Y-%m-%d %H:%M}"
                if link.last_used_at
                else "never used"
            )
            self.stdout.write(f"{link.name}\t{state}\t{used}")
