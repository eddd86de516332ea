"""Logins are throttled (django-axes): locked after repeated failures for a user name or
from an address, with a clear page, an audit row, and an admin who can lift the lock."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.test import Client

from dashboard.models import AuditEntry
from tests.support.users import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


@pytest.fixture(autouse=True)
def _limits(settings):
    settings.AXES_FAILURE_LIMIT = 3


def fail(client: Client, username: str = "vera", **extra):
    return client.post(LOGIN, {"username": username, "password": "wrong"}, **extra)


def test_the_limit_locks_the_user_name_with_a_clear_page_even_for_the_right_password():
    make_user("vera", "viewer")
    client = Client()
    for _ in range(2):
        assert fail(client).status_code == 200  # the form again, with its error

    locked = fail(client)
    right = client.post(LOGIN, {"username": "vera", "password": PASSWORD})

    assert locked.status_code == 429
    assert "Login locked" in locked.content.decode()
    assert "logging in is locked for 15 minutes" in locked.content.decode()
    assert right.status_code == 429
    assert "_auth_user_id" not in client.session


def test_the_user_name_is_locked_from_every_address():
    make_user("vera", "viewer")
    for n in range(3):
        fail(Client(REMOTE_ADDR=f"10.0.0.{n}"))

    response = Client(REMOTE_ADDR="10.9.9.9").post(
        LOGIN, {"username": "vera", "password": PASSWORD}
    )

    assert response.status_code == 429


def test_an_address_is_locked_whatever_user_name_it_tries():
    make_user("vera", "viewer")
    for name in ("a", "b", "c"):
        fail(Client(REMOTE_ADDR="10.0.0.7"), username=name)

    response = Client(REMOTE_ADDR="10.0.0.7").post(
        LOGIN, {"username": "vera", "password": PASSWORD}
    )

    assert response.status_code == 429


def test_the_lock_is_audit_logged_once():
    for _ in range(3):
        fail(Client(REMOTE_ADDR="10.0.0.7"))

    entry = AuditEntry.objects.get(action="login_locked")
    assert entry.parameters == {"username": "vera", "ip_address": "10.0.0.7"}
    assert entry.target_kind == "login"


def test_an_admin_lifts_the_lock_in_the_admin_and_it_is_audit_logged():
    make_user("vera", "viewer")
    for _ in range(3):
        fail(Client())
    admin = Client()
    admin.force_login(make_user("alice", "admin"))
    attempt = AccessAttempt.objects.get(username="vera")

    listing = admin.get("/admin/axes/accessattempt/")
    deleted = admin.post(f"/admin/axes/accessattempt/{attempt.pk}/delete/", {"post": "yes"})

    assert listing.status_code == 200
    assert deleted.status_code == 302
    assert not AccessAttempt.objects.exists()
    lifted = AuditEntry.objects.get(action="login_unlocked")
    assert lifted.actor_name == "alice"
    assert lifted.parameters["username"] == "vera"
    assert Client().post(LOGIN, {"username": "vera", "password": PASSWORD}).status_code == 302


def test_a_viewer_cannot_lift_a_lock():
    viewer = Client()
    viewer.force_login(make_user("olga", "operator"))

    assert viewer.get("/admin/axes/accessattempt/").status_code in (302, 403)


def test_x_forwarded_for_is_ignored_without_a_trusted_proxy():
    make_user("vera", "viewer")
    for n in range(3):
        # A client rotating a forged header is still one address.
        fail(Client(REMOTE_ADDR="10.0.0.7", HTTP_X_FORWARDED_FOR=f"192.0.2.{n}"), username=f"u{n}")

    assert AccessAttempt.objects.filter(ip_address="10.0.0.7").count() == 3
    assert fail(Client(REMOTE_ADDR="10.0.0.7"), username="x").status_code == 429


def test_behind_a_trusted_proxy_the_client_is_read_from_x_forwarded_for(settings):
    settings.LOOKOUT_TRUSTED_PROXY_COUNT = 1
    proxy = "10.0.0.1"
    for name in ("a", "b", "c"):
        # The proxy appends the address it saw; what the client sent further left is ignored.
        fail(
            Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR=f"6.6.6.{ord(name)}, 198.51.100.4"),
            username=name,
        )

    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"198.51.100.4"}
    other = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.5")
    assert other.post(LOGIN, {"username": "d", "password": "x"}).status_code == 200
    again = Client(REMOTE_ADDR=proxy, HTTP_X_FORWARDED_FOR="198.51.100.4")
    assert again.post(LOGIN, {"username": "d", "password": "x"}).status_code == 429
