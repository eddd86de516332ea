"""Client for an OpenID Connect provider: discovery, signing keys, the code exchange and
userinfo.

- Discovery (`<issuer>/.well-known/openid-configuration`) is fetched on first use and
  kept for `metadata_seconds`; the issuer it names must be the configured one.
- The provider's signing keys (JWKS) are kept until an ID token names a key id the kept
  set does not have: then they are fetched again once, which is how a key rotation at
  the provider is followed. Tokens only reach this check from the provider's own token
  endpoint, so an unknown key id cannot be used to make us hammer the provider.
- Every call has an explicit (connect, read) timeout and follows no redirect; every
  failure is an `OidcProviderError` whose message holds no secret.

Nothing here imports Django.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import jwt
import requests
import requests.auth

from dashboard.clients.base import USER_AGENT, Timeout

DISCOVERY_PATH = "/.well-known/openid-configuration"
# Only asymmetric signatures: an ID token signed with "none" or a shared secret is refused.
SIGNING_ALGORITHMS = frozenset(
    {"RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "ES512"}
)


class OidcProviderError(Exception):
    """The provider could not be reached, or answered something unusable."""


class UnknownSigningKey(OidcProviderError):
    """No key the provider publishes matches the token's key id and algorithm."""


@dataclass(frozen=True)
class ProviderMetadata:
    issuer: str
    authorization_endpoint: str
    token_endpoint: str
    userinfo_endpoint: str
    jwks_uri: str
    # Absent when the provider offers no log-out (RP-initiated logout).
    end_session_endpoint: str | None

    @classmethod
    def from_discovery(cls, document: Mapping[str, Any], *, issuer: str) -> ProviderMetadata:
        if document.get("issuer") != issuer:
            raise OidcProviderError(
                f"The provider's discovery document names issuer {document.get('issuer')!r}, "
                f"not the configured {issuer!r}"
            )
        endpoints = {}
        for name in ("authorization_endpoint", "token_endpoint", "userinfo_endpoint", "jwks_uri"):
            value = document.get(name)
            if not isinstance(value, str) or not value.startswith(("https://", "http://")):
                raise OidcProviderError(f"The provider's discovery document has no {name}")
            endpoints[name] = value
        end_session = document.get("end_session_endpoint")
        return cls(
            issuer=issuer,
            end_session_endpoint=end_session if isinstance(end_session, str) else None,
            **endpoints,
        )


class OidcClient:
    """One provider, one client registration. Safe to share between threads."""

    def __init__(self, issuer: str, *, timeout: Timeout, metadata_seconds: float = 3600) -> None:
        self.issuer = issuer
        self.timeout = timeout
        self.metadata_seconds = metadata_seconds
        self._session = requests.Session()
        self._session.headers["User-Agent"] = USER_AGENT
        self._lock = threading.Lock()
        self._metadata: ProviderMetadata | None = None
        self._metadata_at = 0.0
        self._keys: list[dict[str, Any]] | None = None

    # --- HTTP

    def _json(self, response: requests.Response, what: str) -> Any:
        if response.status_code != 200:
            raise OidcProviderError(f"The provider's {what} answered HTTP {response.status_code}")
        try:
            return response.json()
        except ValueError:
            raise OidcProviderError(f"The provider's {what} did not answer JSON") from None

    def _get(self, url: str, what: str, **kwargs: Any) -> Any:
        try:
            response = self._session.get(url, timeout=self.timeout, allow_redirects=False, **kwargs)
        except requests.RequestException as exc:
            raise OidcProviderError(
                f"The provider's {what} could not be reached: {type(exc).__name__}"
            ) from None
        return self._json(response, what)

    # --- discovery and keys

    def metadata(self) -> ProviderMetadata:
        with self._lock:
            fresh = time.monotonic() - self._metadata_at < self.metadata_seconds
            if self._metadata is None or not fresh:
                document = self._get(self.issuer.rstrip("/") + DISCOVERY_PATH, "discovery")
                if not isinstance(document, dict):
                    raise OidcProviderError("The provider's discovery document is not an object")
                self._metadata = ProviderMetadata.from_discovery(document, issuer=self.issuer)
                self._metadata_at = time.monotonic()
            return self._metadata

    def _fetch_keys(self) -> list[dict[str, Any]]:
        document = self._get(self.metadata().jwks_uri, "key set")
        keys = document.get("keys") if isinstance(document, dict) else None
        if not isinstance(keys, list):
            raise OidcProviderError("The provider's key set has no keys")
        return [key for key in keys if isinstance(key, dict)]

    @staticmethod
    def _matching(keys: list[dict[str, Any]], kid: str | None, alg: str) -> dict[str, Any] | None:
        for key in keys:
            if key.get("use", "sig") != "sig":
                continue
            if kid is not None and key.get("kid") != kid:
                continue
            if "alg" in key and key["alg"] != alg:
                continue
            return key
        return None

    def signing_key(self, *, kid: str | None, alg: str) -> jwt.PyJWK:
        """The published key for a token's `kid` and `alg`, refetching the key set once
        when the kept one has no such key (the provider rotated its keys)."""
        with self._lock:
            keys = self._keys
        key = self._matching(keys, kid, alg) if keys is not None else None
        if key is None:
            keys = self._fetch_keys()
            with self._lock:
                self._keys = keys
            key = self._matching(keys, kid, alg)
        if key is None:
            raise UnknownSigningKey(f"The provider publishes no key {kid!r} for {alg}")
        try:
            return jwt.PyJWK(key, algorithm=alg)
        except jwt.PyJWTError as exc:
            raise OidcProviderError(f"The provider's key {kid!r} is unusable: {exc}") from None

    # --- the code flow's back channel

    def exchange_code(
        self,
        *,
        code: str,
        redirect_uri: str,
        code_verifier: str | None,
        client_id: str,
        secret: str,
    ) -> dict[str, Any]:
        """The token endpoint's answer for an authorization code (client_secret_basic)."""
        form = {"grant_type": "authorization_code", "code": code, "redirect_uri": redirect_uri}
        if code_verifier is not None:
            form["code_verifier"] = code_verifier
        try:
            response = self._session.post(
                self.metadata().token_endpoint,
                data=form,
                auth=requests.auth.HTTPBasicAuth(client_id, secret),
                timeout=self.timeout,
                allow_redirects=False,
            )
        except requests.RequestException as exc:
            raise OidcProviderError(
                f"The provider's token endpoint could not be reached: {type(exc).__name__}"
            ) from None
        if response.status_code != 200:
            raise OidcProviderError(
                f"The provider's token endpoint answered HTTP {response.status_code}: "
                f"{_oauth_error(response)}"
            )
        answer = self._json(response, "token endpoint")
        if not isinstance(answer, dict) or not isinstance(answer.get("id_token"), str):
            raise OidcProviderError("The provider's token endpoint gave no ID token")
        return answer

    def userinfo(self, access_token: str) -> dict[str, Any]:
        answer = self._get(
            self.metadata().userinfo_endpoint,
            "userinfo endpoint",
            headers={"Authorization": f"Bearer {access_token}"},
        )
        if not isinstance(answer, dict):
            raise OidcProviderError("The provider's userinfo endpoint did not answer an object")
        return answer


def _oauth_error(response: requests.Response) -> str:
    """The OAuth error code of a refused token request (never its body, which could echo
    what was sent)."""
    try:
        error = json.loads(response.text).get("error")
    except (ValueError, AttributeError):
        return "(no error code)"
    return str(error)[:100] if error else "(no error code)"
