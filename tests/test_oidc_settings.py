"""The LOOKOUT_OIDC_* settings: what they switch on, what they refuse, and production's
deployment checks with a provider configured."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests import test_settings
from tests.test_deploy_check import deploy_check, production_env

# The settings tests' fixtures: a clean environment, settings loaded from it.
clean_env = test_settings.clean_env
load_settings = test_settings.load_settings

ISSUER = "https://login.example.org/realms/archives"
PROVIDER = {
    "LOOKOUT_OIDC_ISSUER": ISSUER,
    "LOOKOUT_OIDC_CLIENT_ID": "lookout",
    "LOOKOUT_OIDC_CLIENT_SECRET": "s3cret",
}


def test_without_an_issuer_sign_in_through_a_provider_is_off(load_settings):
    settings = load_settings()
    assert settings.LOOKOUT_OIDC_ISSUER == ""
    assert settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"] == ["'self'"]


def test_an_issuer_lets_forms_lead_to_the_providers_origin_only(load_settings):
    settings = load_settings(**PROVIDER)
    assert settings.CONTENT_SECURITY_POLICY["DIRECTIVES"]["form-action"] == [
        "'self'",
        "https://login.example.org",
    ]
    assert settings.LOOKOUT_OIDC_GROUPS_CLAIM == "groups"
    assert settings.LOOKOUT_OIDC_NAME == "single sign-on"


def test_the_client_secret_can_come_from_a_file(load_settings, tmp_path):
    secret = tmp_path / "oidc-secret"
    secret.write_text("from-a-file\n")
    env = {
        **PROVIDER,
        "LOOKOUT_OIDC_CLIENT_SECRET": "",
        "LOOKOUT_OIDC_CLIENT_SECRET_FILE": str(secret),
    }
    assert load_settings(**env).LOOKOUT_OIDC_CLIENT_SECRET == "from-a-file"


@pytest.mark.parametrize("missing", ["LOOKOUT_OIDC_CLIENT_ID", "LOOKOUT_OIDC_CLIENT_SECRET"])
def test_an_issuer_without_its_client_stops_loading(load_settings, missing):
    with pytest.raises(ImproperlyConfigured, match=missing):
        load_settings(**{**PROVIDER, missing: ""})


def test_an_issuer_that_is_not_a_url_stops_loading(load_settings):
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_OIDC_ISSUER"):
        load_settings(**{**PROVIDER, "LOOKOUT_OIDC_ISSUER": "login.example.org"})


def test_production_refuses_a_plain_http_issuer(load_settings):
    with pytest.raises(ImproperlyConfigured, match="https"):
        load_settings(
            **{**PROVIDER, "LOOKOUT_OIDC_ISSUER": "http://login.example.org"},
            LOOKOUT_PRODUCTION="true",
            SECRET_KEY="k" * 60,
        )


def test_scopes_without_openid_stop_loading(load_settings):
    with pytest.raises(ImproperlyConfigured, match="openid"):
        load_settings(**PROVIDER, LOOKOUT_OIDC_SCOPES="email profile")


@pytest.mark.database
def test_production_with_a_provider_passes_the_deployment_checks(tmp_path):
    result = deploy_check(tmp_path, **production_env(), **PROVIDER)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout
