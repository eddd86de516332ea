"""Production settings pass Django's deployment checks, and the image's static files build.

Each test runs manage.py in a subprocess with only the environment it names, as a
container started from docker-compose.yml would.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
STATIC_TAG = re.compile(r"""\{%\s*static\s+['"]([^'"]+)['"]""")


def manage(tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", ""), "LOOKOUT_VAR_DIR": str(tmp_path / "var")}
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        # collectstatic compresses the API pages' bundles (megabytes) with brotli and gzip:
        # about 30 s of CPU, which a loaded 2-core machine can stretch several times.
        timeout=360,
    )


def deploy_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return manage(tmp_path, "check", "--deploy", "--fail-level", "WARNING", **env)


def production_env() -> dict[str, str]:
    return {
        "LOOKOUT_PRODUCTION": "true",
        "SECRET_KEY": secrets.token_urlsafe(50),
        "ALLOWED_HOSTS": "lookout.example.org",
        "DEBUG": "false",
    }


def compose_stack_env() -> dict[str, str]:
    """What the web container sees: .env.example as .env, then compose's environment."""
    env = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, _, value = line.partition("=")
            env[name] = value
    env["POSTGRES_PASSWORD"] = secrets.token_hex(16)
    web = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]["web"]
    for name, value in web["environment"].items():
        env[name] = re.sub(r"\$\{([A-Z_]+)[^}]*\}", lambda match: env[match[1]], str(value))
    env["SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def test_the_deploy_check_is_clean_with_production_settings(tmp_path):
    result = deploy_check(tmp_path, **production_env())
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout
    assert "WARNING" not in result.stderr


def test_the_deploy_check_is_clean_with_the_compose_environment(tmp_path):
    env = compose_stack_env()
    assert env["DATABASE_URL"].startswith("postgres://lookout:")
    result = deploy_check(tmp_path, **env)
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_deploy_check_is_clean_with_hsts_preload_opted_in(tmp_path):
    result = deploy_check(tmp_path, **production_env(), SECURE_HSTS_PRELOAD="true")
    assert result.returncode == 0, result.stderr
    assert "System check identified no issues" in result.stdout


def test_the_deploy_check_still_reports_insecure_production_values(tmp_path):
    # Proves the clean runs above mean something: nothing silences these checks.
    env = {**production_env(), "SECRET_KEY": "short-and-guessable", "DEBUG": "true"}
    result = deploy_check(tmp_path, **env)
    assert result.returncode != 0
    assert "security.W009" in result.stderr
    assert "security.W018" in result.stderr


def test_production_static_files_collect_and_cover_every_template_reference(tmp_path):
    result = manage(tmp_path, "collectstatic", "--noinput", **production_env())
    assert result.returncode == 0, result.stderr
    manifest = json.loads((tmp_path / "var" / "staticfiles" / "staticfiles.json").read_text())
    referenced = {
        path
        for template in (ROOT / "templates").rglob("*.html")
        for path in STATIC_TAG.findall(template.read_text())
    }
    assert referenced, "no {% static %} tag found; the pattern above is out of date"
    missing = referenced - set(manifest["paths"])
    assert not missing
    for hashed in (manifest["paths"][path] for path in referenced):
        assert (tmp_path / "var" / "staticfiles" / hashed).is_file()
