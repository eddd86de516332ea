"""Signing in through a real OpenLDAP (a private slapd, tests/support/ldap_server.py):
roles from group DNs at every login, the login throttle, the directory being down."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core.cache import cache
from django.test import Client

from config.ldap import ldap_settings
from dashboard import tasks
from dashboard.models import AuditEntry, DirectoryAccount
from dashboard.services.directory_accounts import ldap_accounts_check
from tests.conftest import LOCMEM
from tests.support import ldap_server
from tests.support.api_tokens import api_token_for
from tests.support.ldap_server import PASSWORD, LdapServer, group_dn
from tests.support.users import make_user

pytestmark = [pytest.mark.django_db, pytest.mark.integration]

LOGIN = "/accounts/login/"
DOWN_MESSAGE = "The directory that checks passwords could not be reached"
WRONG_MESSAGE = "Your user name and password did not match"


# The module's private slapd (skips, saying what is missing, without one).
directory = ldap_server.directory


@pytest.fixture(autouse=True)
def ldap_on(directory: LdapServer, settings, monkeypatch) -> LdapServer:
    settings.CACHES = LOCMEM  # an integration test brings its own cache: this one is local
    cache.clear()
    ldap_server.lookout_configure(directory, settings, monkeypatch)
    settings.AXES_FAILURE_LIMIT = 3
    return directory


@pytest.fixture
def moved(directory: LdapServer) -> Iterator[list[tuple[str, str, str]]]:
    """Group changes a test makes, undone afterwards (the directory serves the module)."""
    changes: list[tuple[str, str, str]] = []
    yield changes
    for change, group, uid in reversed(changes):
        if change == "remove":
            directory.member_add(group, uid)
        else:
            directory.member_remove(group, uid)


def move(directory: LdapServer, moved: list, *, uid: str, leave: str, join: str | None) -> None:
    directory.member_remove(leave, uid)
    moved.append(("remove", leave, uid))
    if join:
        directory.member_add(join, uid)
        moved.append(("add", join, uid))


def log_in(username: str, password: str = PASSWORD, client: Client | None = None) -> Client:
    client = client or Client()
    client.post(LOGIN, {"username": username, "password": password})
    return client


def roles_of(username: str) -> list[str]:
    return sorted(User.objects.get(username=username).groups.values_list("name", flat=True))


def test_a_directory_user_signs_in_with_the_role_their_group_maps_to():
    client = log_in("olga")

    assert "_auth_user_id" in client.session
    assert roles_of("olga") == ["operator"]
    user = User.objects.get(username="olga")
    assert (user.first_name, user.email) == ("Olga", "olga@example.org")
    assert not user.has_usable_password()  # the directory checks the password
    assert client.get("/").status_code == 200
    grant = AuditEntry.objects.get(action="directory_role_grant", target="olga")
    assert grant.parameters == {
        "role": "operator",
        "source": "ldap",
        "groups": [group_dn("operators")],
    }


def test_removed_from_a_group_they_lose_the_role_at_the_next_login(ldap_on, moved):
    log_in("olga")
    move(ldap_on, moved, uid="olga", leave="operators", join="viewers")

    client = log_in("olga")

    assert "_auth_user_id" in client.session
    assert roles_of("olga") == ["viewer"]
    actions = list(
        AuditEntry.objects.filter(target="olga")
        .order_by("id")
        .values_list("action", "parameters__role")
    )
    assert actions == [
        ("directory_role_grant", "operator"),
        ("directory_role_grant", "viewer"),
        ("directory_role_revoke", "operator"),
    ]


def test_a_user_in_no_mapped_group_signs_in_to_the_no_access_page():
    client = log_in("nico")

    assert "_auth_user_id" in client.session
    assert roles_of("nico") == []
    page = client.get("/")
    assert page.status_code == 403
    assert "You are signed in as <strong>nico</strong>" in page.content.decode()


def test_their_api_token_stops_working_once_a_login_finds_no_role(ldap_on, moved):
    log_in("olga")
    token = api_token_for(User.objects.get(username="olga"))
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert Client().get("/api/v1/units/", **auth).status_code == 200
    move(ldap_on, moved, uid="olga", leave="operators", join=None)

    log_in("olga")

    assert roles_of("olga") == []
    assert Client().get("/api/v1/units/", **auth).status_code == 403


def test_a_wrong_directory_password_counts_toward_the_login_throttle():
    client = Client()
    first = log_in("vic", "not the password", client).post(
        LOGIN, {"username": "vic", "password": "still not"}
    )
    assert first.status_code == 200
    assert WRONG_MESSAGE in first.content.decode()
    assert AccessAttempt.objects.get(username="vic").failures_since_start == 2

    third = client.post(LOGIN, {"username": "vic", "password": "wrong again"})
    right = Client().post(LOGIN, {"username": "vic", "password": PASSWORD})

    assert third.status_code == 429
    assert right.status_code == 429  # locked, even with the right password
    assert not User.objects.filter(username="vic").exists()


def test_the_directory_being_down_gives_a_clear_message_and_a_failing_health_check(ldap_on):
    assert Client().get("/healthz").json()["checks"]["directory:ldap"]["ok"] is True
    ldap_on.stop()
    try:
        response = Client().post(LOGIN, {"username": "olga", "password": PASSWORD})
        cache.clear()  # /healthz probes again instead of reading what the login found
        health = Client().get("/healthz")
    finally:
        ldap_on.start()

    assert response.status_code == 200
    page = response.content.decode()
    assert DOWN_MESSAGE in page
    assert WRONG_MESSAGE not in page
    assert 'value="olga"' in page  # the form keeps what was typed
    assert health.status_code == 503
    assert health.json()["checks"]["directory:ldap"] == {"ok": False, "reason": "no answer"}


def test_a_health_check_by_someone_with_a_role_says_why_the_directory_failed(settings):
    settings.AUTH_LDAP_BIND_PASSWORD = "not the bind password"
    client = Client()
    client.force_login(make_user("vera", "viewer"))

    check = client.get("/healthz").json()["checks"]["directory:ldap"]

    assert check == {"ok": False, "reason": "no answer: Invalid credentials"}


def test_with_local_passwords_off_directory_users_still_sign_in_and_local_ones_do_not(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    make_user("lena", "viewer")

    assert "_auth_user_id" in log_in("vic").session
    assert "_auth_user_id" not in log_in("lena").session
    assert roles_of("vic") == ["viewer"]


def test_a_former_local_account_the_directory_takes_over_loses_its_local_password():
    make_user("vic")  # same name as the directory's vic, with a local password

    log_in("vic")

    user = User.objects.get(username="vic")
    assert not user.has_usable_password()
    assert roles_of("vic") == ["viewer"]


def test_an_account_deleted_from_the_directory_loses_its_role_at_the_next_check(ldap_on):
    ldap_on.person_add("leaver", groups=["operators"])
    log_in("leaver")
    log_in("vic")
    token = api_token_for(User.objects.get(username="leaver"))
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert Client().get("/api/v1/units/", **auth).status_code == 200
    ldap_on.person_delete("leaver", groups=["operators"])

    line = ldap_accounts_check()

    assert line == "1 LDAP accounts found, 1 gone (roles taken)"
    assert roles_of("leaver") == []
    assert roles_of("vic") == ["viewer"]
    assert Client().get("/api/v1/units/", **auth).status_code == 403
    revoke = AuditEntry.objects.get(action="directory_role_revoke", target="leaver")
    assert revoke.parameters["source"] == "ldap"
    assert DirectoryAccount.objects.get(user__username="vic").seen_at is not None


def test_the_check_changes_nothing_while_the_directory_does_not_answer(ldap_on):
    log_in("olga")
    ldap_on.stop()
    try:
        line = ldap_accounts_check()
    finally:
        ldap_on.start()

    assert line.startswith("skipped: the directory did not answer")
    assert roles_of("olga") == ["operator"]


def test_the_periodic_task_runs_the_check():
    log_in("vic")

    assert tasks.check_ldap_accounts() == "1 LDAP accounts found, 0 gone (roles taken)"


@pytest.fixture
def start_tls(ldap_on: LdapServer, settings, monkeypatch) -> LdapServer:
    if ldap_on.ca_file is None:
        pytest.skip("openssl is not installed: no certificate for the StartTLS test")
    monkeypatch.setenv("LOOKOUT_LDAP_START_TLS", "true")
    monkeypatch.setenv("LOOKOUT_LDAP_CA_FILE", str(ldap_on.ca_file))
    for name, value in ldap_settings().items():
        setattr(settings, name, value)
    return ldap_on


def test_start_tls_with_the_directorys_ca_signs_in(start_tls):
    client = log_in("vic")

    assert "_auth_user_id" in client.session
    assert Client().get("/healthz").json()["checks"]["directory:ldap"]["ok"] is True


def test_start_tls_with_a_certificate_not_trusted_is_the_directory_message(
    start_tls, settings, monkeypatch
):
    monkeypatch.delenv("LOOKOUT_LDAP_CA_FILE")  # the system's CAs do not know this one
    for name, value in ldap_settings().items():
        setattr(settings, name, value)

    response = Client().post(LOGIN, {"username": "vic", "password": PASSWORD})

    assert DOWN_MESSAGE in response.content.decode()
    assert not User.objects.filter(username="vic").exists()
