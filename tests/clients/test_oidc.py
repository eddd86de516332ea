"""The OpenID Connect provider client: discovery, signing keys and their rotation, the
code exchange. HTTP is mocked here; tests/browser/test_oidc_sign_in.py runs the whole
flow against a real provider."""

from __future__ import annotations

import pytest
import requests
import responses
from cryptography.hazmat.primitives.asymmetric import rsa
from jwt.algorithms import RSAAlgorithm

from dashboard.clients.oidc import OidcClient, OidcProviderError, UnknownSigningKey

ISSUER = "https://idp.example.org/realms/archives"
DISCOVERY = f"{ISSUER}/.well-known/openid-configuration"
JWKS = f"{ISSUER}/protocol/openid-connect/certs"
TOKEN = f"{ISSUER}/protocol/openid-connect/token"
SECRET = "client-secret-never-in-messages"


def discovery(**changes: object) -> dict[str, object]:
    return {
        "issuer": ISSUER,
        "authorization_endpoint": f"{ISSUER}/protocol/openid-connect/auth",
        "token_endpoint": TOKEN,
        "userinfo_endpoint": f"{ISSUER}/protocol/openid-connect/userinfo",
        "jwks_uri": JWKS,
        "end_session_endpoint": f"{ISSUER}/protocol/openid-connect/logout",
        **changes,
    }


def public_jwk(kid: str) -> dict[str, object]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048).public_key()
    return {**RSAAlgorithm.to_jwk(key, as_dict=True), "kid": kid, "use": "sig", "alg": "RS256"}


@pytest.fixture
def client() -> OidcClient:
    return OidcClient(ISSUER, timeout=(1.0, 2.0))


def test_it_reads_the_endpoints_from_discovery_once(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    first = client.metadata()
    assert client.metadata() is first
    assert first.token_endpoint == TOKEN
    assert first.end_session_endpoint == f"{ISSUER}/protocol/openid-connect/logout"
    assert len(mocked.calls) == 1


def test_a_provider_without_log_out_has_no_end_session_endpoint(mocked, client):
    mocked.get(DISCOVERY, json=discovery(end_session_endpoint=None))
    assert client.metadata().end_session_endpoint is None


def test_it_refuses_a_discovery_document_for_another_issuer(mocked, client):
    mocked.get(DISCOVERY, json=discovery(issuer="https://evil.example.org"))
    with pytest.raises(OidcProviderError, match="names issuer"):
        client.metadata()


@pytest.mark.parametrize(
    "answer",
    [
        {"body": "<html>maintenance</html>", "status": 200, "content_type": "text/html"},
        {"json": {"error": "down"}, "status": 503},
        {"json": discovery(jwks_uri=None)},
        {"json": ["not", "an", "object"]},
    ],
)
def test_unusable_discovery_is_an_error_not_a_crash(mocked, client, answer):
    mocked.get(DISCOVERY, **answer)
    with pytest.raises(OidcProviderError):
        client.metadata()


def test_an_unreachable_provider_is_an_error_naming_no_url_secret(mocked, client):
    mocked.get(DISCOVERY, body=requests.ConnectTimeout("timed out"))
    with pytest.raises(OidcProviderError, match="could not be reached: ConnectTimeout"):
        client.metadata()


def test_a_known_key_id_is_served_from_the_kept_key_set(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    mocked.get(JWKS, json={"keys": [public_jwk("k1")]})
    client.signing_key(kid="k1", alg="RS256")
    client.signing_key(kid="k1", alg="RS256")
    assert [call.request.url for call in mocked.calls].count(JWKS) == 1


def test_an_unknown_key_id_fetches_the_key_set_again_after_a_rotation(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    mocked.get(JWKS, json={"keys": [public_jwk("old")]})
    client.signing_key(kid="old", alg="RS256")
    mocked.replace(responses.GET, JWKS, json={"keys": [public_jwk("new")]})
    key = client.signing_key(kid="new", alg="RS256")
    assert key.key_id == "new"
    assert [call.request.url for call in mocked.calls].count(JWKS) == 2


def test_a_key_id_the_provider_does_not_publish_is_refused(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    mocked.get(JWKS, json={"keys": [public_jwk("k1")]})
    with pytest.raises(UnknownSigningKey):
        client.signing_key(kid="k2", alg="RS256")
    with pytest.raises(UnknownSigningKey):
        client.signing_key(kid="k1", alg="ES256")  # the key is for RS256 only


def test_the_code_exchange_authenticates_with_http_basic_and_sends_the_verifier(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    mocked.post(TOKEN, json={"id_token": "a.b.c", "access_token": "at"})
    answer = client.exchange_code(
        code="the-code",
        redirect_uri="https://lookout.example.org/oidc/callback/",
        code_verifier="v" * 64,
        client_id="lookout",
        secret=SECRET,
    )
    assert answer["id_token"] == "a.b.c"
    sent = mocked.calls[-1].request
    assert sent.headers["Authorization"].startswith("Basic ")
    assert "code_verifier=" + "v" * 64 in sent.body
    assert SECRET not in sent.body


def test_a_refused_code_exchange_gives_the_oauth_error_and_not_the_body(mocked, client):
    mocked.get(DISCOVERY, json=discovery())
    mocked.post(TOKEN, status=400, json={"error": "invalid_grant", "echo": SECRET})
    with pytest.raises(OidcProviderError) as refused:
        client.exchange_code(
            code="used", redirect_uri="https://l/", code_verifier=None, client_id="c", secret=SECRET
        )
    assert "invalid_grant" in str(refused.value)
    assert SECRET not in str(refused.value)
