"""`python manage.py simulate [options]`: run the fake upstream services.

A thin wrapper: the options and the behaviour are those of `python -m simulator`.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import BaseCommand

from simulator.config import DESCRIPTION, add_simulator_arguments, config_from_options


class Command(BaseCommand):
    help = DESCRIPTION
    # The simulator needs no database, and start-up checks would only slow it down.
    requires_system_checks: list[str] = []
    requires_migrations_checks = False

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        add_simulator_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        from simulator.server import serve

        def announce(line: str) -> None:
            self.stdout.write(line)
            self.stdout.flush()

        serve(config_from_options(options), announce=announce)
