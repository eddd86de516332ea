"""Password reset exists only where Lookout can send mail."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.tokens import default_token_generator
from django.core import mail
from django.test import Client
from django.utils.encoding import force_bytes
from django.utils.http import urlsafe_base64_encode

from tests.support.users import make_user

pytestmark = pytest.mark.django_db

RESET_PAGES = [
    "/accounts/password_reset/",
    "/accounts/password_reset/done/",
    "/accounts/reset/done/",
]


def test_without_mail_every_reset_page_is_a_404(settings):
    assert settings.LOOKOUT_PASSWORD_RESET is False  # the test settings configure no mail
    user = make_user("vera", "viewer")
    confirm = (
        f"/accounts/reset/{urlsafe_base64_encode(force_bytes(user.pk))}/"
        f"{default_token_generator.make_token(user)}/"
    )

    for url in [*RESET_PAGES, confirm]:
        assert Client().get(url).status_code == 404, url
    assert Client().post(RESET_PAGES[0], {"email": "vera@example.org"}).status_code == 404


def test_without_mail_the_login_page_does_not_mention_it():
    page = Client().get("/accounts/login/").content.decode().lower()
    # The random CSRF token could spell "reset" by chance: leave long tokens out.
    page = re.sub(r"[a-z0-9]{32,}", "", page)

    assert "password_reset" not in page
    assert "forgot" not in page and "reset" not in page


def test_with_mail_the_login_page_links_to_a_working_reset(settings):
    settings.LOOKOUT_PASSWORD_RESET = True
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    user = make_user("vera", "viewer")
    user.email = "vera@example.org"
    user.save()

    login = Client().get("/accounts/login/").content.decode()
    sent = Client().post("/accounts/password_reset/", {"email": "vera@example.org"})

    assert 'href="/accounts/password_reset/"' in login
    assert sent.status_code == 302
    assert len(mail.outbox) == 1
    assert "/accounts/reset/" in mail.outbox[0].body
