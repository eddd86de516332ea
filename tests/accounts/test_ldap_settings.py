"""LOOKOUT_LDAP_* become django-auth-ldap's settings; a mistake stops start-up with a
message naming the variable, and LDAP stays off while LOOKOUT_LDAP_URL is empty."""

from __future__ import annotations

from datetime import timedelta

import ldap
import pytest
from django.core.exceptions import ImproperlyConfigured
from django_auth_ldap.config import NestedActiveDirectoryGroupType, PosixGroupType

from config.ldap import ldap_settings
from tests import test_settings

# The settings loader of tests/test_settings.py: config/settings.py run afresh.
clean_env = test_settings.clean_env
load_settings = test_settings.load_settings

GOOD = {
    "LOOKOUT_LDAP_URL": "ldap://ldap.example.org",
    "LOOKOUT_LDAP_USER_SEARCH": "ou=people,dc=example,dc=org|(uid=%(user)s)",
    "LOOKOUT_LDAP_GROUP_SEARCH": "ou=groups,dc=example,dc=org",
}


def test_ldap_is_off_without_a_url(load_settings):
    settings = load_settings()

    assert settings.LOOKOUT_LDAP_ENABLED is False
    assert not hasattr(settings, "AUTH_LDAP_SERVER_URI")
    assert "check-ldap-accounts" not in settings.CELERY_BEAT_SCHEDULE
    assert "dashboard.backends.LDAPDirectoryBackend" not in settings.AUTHENTICATION_BACKENDS


def test_with_a_url_the_ldap_backend_comes_right_after_the_login_throttle(load_settings, tmp_path):
    secret = tmp_path / "bind-password"
    secret.write_text("from a file\n")

    settings = load_settings(
        **GOOD,
        LOOKOUT_LDAP_BIND_DN="cn=lookout,dc=example,dc=org",
        LOOKOUT_LDAP_BIND_PASSWORD_FILE=str(secret),
        LOOKOUT_LDAP_START_TLS="true",
        LOOKOUT_LDAP_CHECK_MINUTES="15",
    )

    assert settings.LOOKOUT_LDAP_ENABLED is True
    assert settings.AUTHENTICATION_BACKENDS[:2] == [
        "axes.backends.AxesStandaloneBackend",
        "dashboard.backends.LDAPDirectoryBackend",
    ]
    assert settings.AUTH_LDAP_BIND_PASSWORD == "from a file"
    assert settings.AUTH_LDAP_START_TLS is True
    assert settings.AUTH_LDAP_USER_SEARCH.base_dn == "ou=people,dc=example,dc=org"
    assert settings.AUTH_LDAP_GROUP_SEARCH.filterstr == "(objectClass=groupOfNames)"
    assert settings.AUTH_LDAP_CONNECTION_OPTIONS[ldap.OPT_NETWORK_TIMEOUT] == 5.0
    check = settings.CELERY_BEAT_SCHEDULE["check-ldap-accounts"]
    assert check["task"] == "dashboard.tasks.check_ldap_accounts"
    assert check["schedule"] == timedelta(minutes=15)


def test_the_user_filter_defaults_to_uid(clean_env):
    for name, value in GOOD.items():
        clean_env.setenv(name, value)
    clean_env.setenv("LOOKOUT_LDAP_USER_SEARCH", "ou=people,dc=example,dc=org")

    assert ldap_settings()["AUTH_LDAP_USER_SEARCH"].filterstr == "(uid=%(user)s)"


@pytest.mark.parametrize(
    ("group_type", "expected", "group_filter"),
    [
        ("posixGroup", PosixGroupType, "(objectClass=posixGroup)"),
        ("nestedActiveDirectory", NestedActiveDirectoryGroupType, "(objectClass=group)"),
    ],
)
def test_the_group_type_picks_its_class_and_filter(clean_env, group_type, expected, group_filter):
    for name, value in GOOD.items():
        clean_env.setenv(name, value)
    clean_env.setenv("LOOKOUT_LDAP_GROUP_TYPE", group_type)

    found = ldap_settings()

    assert type(found["AUTH_LDAP_GROUP_TYPE"]) is expected
    assert found["AUTH_LDAP_GROUP_SEARCH"].filterstr == group_filter


@pytest.mark.parametrize(
    ("variable", "value", "message"),
    [
        ("LOOKOUT_LDAP_URL", "https://ldap.example.org", "must be an ldap:// or ldaps:// URL"),
        ("LOOKOUT_LDAP_USER_SEARCH", "", "must be set when LOOKOUT_LDAP_URL is"),
        ("LOOKOUT_LDAP_USER_SEARCH", "people|(uid=%(user)s)", "must start with a base DN"),
        ("LOOKOUT_LDAP_USER_SEARCH", "ou=people,dc=x|uid=%(user)s", "must be in parentheses"),
        ("LOOKOUT_LDAP_USER_SEARCH", "ou=people,dc=x|(uid=alice)", "must contain %(user)s"),
        ("LOOKOUT_LDAP_GROUP_SEARCH", "", "must be set when LOOKOUT_LDAP_URL is"),
        ("LOOKOUT_LDAP_GROUP_TYPE", "memberOf", "must be one of groupOfNames"),
        ("LOOKOUT_LDAP_START_TLS", "maybe", "must be true or false"),
    ],
)
def test_a_bad_value_stops_loading_and_names_the_variable(load_settings, variable, value, message):
    with pytest.raises(ImproperlyConfigured, match=variable) as caught:
        load_settings(**{**GOOD, variable: value})

    assert message in str(caught.value)
