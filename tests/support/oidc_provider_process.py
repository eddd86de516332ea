"""A real OpenID Connect provider for the sign-in tests: the certified Node `oidc-provider`
(tests/support/oidc_provider/provider.mjs) on a free loopback port.

Its dependencies are installed with `npm ci` into that folder on first use (or by
scripts/test-prerequisites.sh). Without node and npm the tests that need it skip, with
one line saying so (`node_missing`).
"""

from __future__ import annotations

import json
import secrets
import shutil
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

import requests

from tests.support.redis_server import free_port

PROVIDER_DIR = Path(__file__).resolve().parent / "oidc_provider"
CLIENT_ID = "lookout-test"


def node_missing() -> str | None:
    """Why the provider cannot run here, or None."""
    missing = [tool for tool in ("node", "npm") if shutil.which(tool) is None]
    if missing:
        return (
            f"OpenID Connect provider tests skipped: {' and '.join(missing)} not installed "
            "(apt-get install nodejs npm)"
        )
    return None


def install_provider() -> None:
    """`npm ci` into tests/support/oidc_provider/ unless its node_modules are current."""
    marker = PROVIDER_DIR / "node_modules" / ".package-lock.json"
    lock = PROVIDER_DIR / "package-lock.json"
    if marker.exists() and marker.stat().st_mtime >= lock.stat().st_mtime:
        return
    subprocess.run(
        ["npm", "ci", "--no-audit", "--no-fund", "--ignore-scripts"],
        cwd=PROVIDER_DIR,
        check=True,
        capture_output=True,
        timeout=600,
    )


class OidcProvider:
    """One provider process with one confidential client; `users` maps a user name to
    {"password", "name", "email", "groups"}. `restart()` keeps the port (and so the
    issuer) but signs with a new key: a key rotation."""

    def __init__(
        self,
        *,
        lookout_url: str,
        users: dict[str, dict[str, Any]],
        advertise_wrong_key: bool = False,
    ) -> None:
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.client_id = CLIENT_ID
        self.client_secret = secrets.token_urlsafe(24)
        self._dir = Path(tempfile.mkdtemp(prefix="lookout-oidc-"))
        self._users_file = self._dir / "users.json"
        self._config_file = self._dir / "config.json"
        self._log = self._dir / "provider.log"
        self.set_users(users)
        self._config_file.write_text(
            json.dumps(
                {
                    "port": self.port,
                    "users_file": str(self._users_file),
                    "advertise_wrong_key": advertise_wrong_key,
                    "client": {
                        "client_id": self.client_id,
                        "client_secret": self.client_secret,
                        "redirect_uris": [f"{lookout_url}/oidc/callback/"],
                        "post_logout_redirect_uris": [f"{lookout_url}/accounts/login/"],
                    },
                }
            )
        )
        self._process: subprocess.Popen[bytes] | None = None

    def set_users(self, users: dict[str, dict[str, Any]]) -> None:
        """The provider reads its users at every sign-in: no restart needed."""
        self._users_file.write_text(json.dumps(users))

    def start(self) -> OidcProvider:
        install_provider()
        with self._log.open("ab") as log:
            self._process = subprocess.Popen(
                [shutil.which("node") or "node", "provider.mjs", str(self._config_file)],
                cwd=PROVIDER_DIR,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + 30
        while True:
            try:
                answer = requests.get(f"{self.issuer}/.well-known/openid-configuration", timeout=1)
                if answer.status_code == 200:
                    return self
            except requests.RequestException:
                pass
            if self._process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the OpenID Connect provider did not start: {self.log()}")
            time.sleep(0.1)

    def stop(self) -> None:
        if self._process is not None:
            self._process.terminate()
            self._process.wait(timeout=10)
            self._process = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def log(self) -> str:
        return self._log.read_text(errors="replace") if self._log.exists() else ""

    def __enter__(self) -> OidcProvider:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        shutil.rmtree(self._dir, ignore_errors=True)
