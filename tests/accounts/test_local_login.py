"""LOOKOUT_LOCAL_LOGIN: on by default; off, only a superuser (the break-glass admin) may
still log in with a local password, and other local accounts' API tokens stop working."""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client

from tests.support.api_tokens import api_token_for
from tests.support.users import PASSWORD, make_user

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"


def log_in(username: str, password: str = PASSWORD) -> Client:
    client = Client()
    client.post(LOGIN, {"username": username, "password": password})
    return client


def test_local_passwords_work_by_default():
    make_user("vera", "viewer")

    assert "_auth_user_id" in log_in("vera").session


def test_turned_off_a_local_user_cannot_log_in_and_the_failure_counts(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    make_user("vera", "viewer")

    client = log_in("vera")

    assert "_auth_user_id" not in client.session
    assert AccessAttempt.objects.get(username="vera").failures_since_start == 1


def test_turned_off_the_break_glass_superuser_still_logs_in(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    User.objects.create_superuser("root", password=PASSWORD)

    client = log_in("root")

    assert "_auth_user_id" in client.session
    assert client.get("/").status_code == 200


def test_turned_off_a_local_users_api_token_stops_working(settings):
    user = make_user("vera", "viewer")
    token = api_token_for(user)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert Client().get("/api/v1/units/", **auth).status_code == 200

    settings.LOOKOUT_LOCAL_LOGIN = False

    assert Client().get("/api/v1/units/", **auth).status_code == 401


def test_turned_off_without_ldap_the_login_page_hides_the_password_form(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    settings.LOOKOUT_LDAP_ENABLED = False

    page = Client().get(LOGIN).content.decode()
    break_glass = Client().get(f"{LOGIN}?local=1").content.decode()

    assert 'name="password"' not in page
    assert 'name="password"' in break_glass


def test_turned_off_with_ldap_the_form_stays_for_directory_passwords(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    settings.LOOKOUT_LDAP_ENABLED = True

    assert 'name="password"' in Client().get(LOGIN).content.decode()


def test_a_failed_break_glass_attempt_keeps_the_form(settings):
    settings.LOOKOUT_LOCAL_LOGIN = False
    settings.LOOKOUT_LDAP_ENABLED = False

    response = Client().post(LOGIN, {"username": "root", "password": "wrong"})

    assert 'name="password"' in response.content.decode()
    assert "did not match" in response.content.decode()
