"""`manage.py demo_admin`: make sure a demo administrator exists and print its login.

The password is random and kept in the var/ folder (never committed), so every
install gets its own and `make run` can print it again on the next start.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

USERNAME = "admin"


class Command(BaseCommand):
    help = "Create (or show) the demo administrator for the embedded default."

    def handle(self, *args: Any, **options: Any) -> None:
        if settings.LOOKOUT_PRODUCTION:
            raise CommandError("demo_admin is for the demo only; use createsuperuser")
        secret_file = settings.VAR_DIR / "demo-admin-password"
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        if not secret_file.exists():
            secret_file.write_text(secrets.token_urlsafe(12))
            secret_file.chmod(0o600)
        password = secret_file.read_text().strip()
        user, _ = get_user_model().objects.get_or_create(username=USERNAME)
        user.is_staff = user.is_superuser = True
        user.set_password(password)
        user.save()
        self.stdout.write(f"Demo administrator: user {USERNAME!r}, password {password!r}")
