"""`make lint`'s dependency audit: a vulnerable pin fails it; a service that cannot be
reached is a warning (an error with LOOKOUT_AUDIT_STRICT=1), never a silent pass."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.osv_receiver import Advisory, osv_receiver

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "audit-dependencies.py"

VULNERABLE = {
    "dependencies": [
        {"name": "django", "version": "3.2.0", "vulns": [
            {"id": "PYSEC-2021-98", "fix_versions": ["3.2.1"], "aliases": [], "description": ""}
        ]},
        {"name": "requests", "version": "2.34.2", "vulns": []},
    ],
    "fixes": [],
}  # fmt: skip
CLEAN = {"dependencies": [{"name": "requests", "version": "2.34.2", "vulns": []}], "fixes": []}
NOT_ANSWERED = {
    "dependencies": [{"name": "requests", "skip_reason": "Dependency not found on PyPI"}],
    "fixes": [],
}


def fake_pip_audit(tmp_path: Path, report: dict | None, returncode: int) -> Path:
    """A stand-in for pip-audit that writes `report` where --output says and exits."""
    fake = tmp_path / "pip-audit"
    body = "" if report is None else json.dumps(report)
    fake.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "args = sys.argv\n"
        f"body = {body!r}\n"
        "if body:\n"
        "    open(args[args.index('--output') + 1], 'w').write(body)\n"
        "else:\n"
        "    sys.stderr.write('requests.exceptions.ConnectionError: Failed to resolve\\n')\n"
        f"sys.exit({returncode})\n"
    )
    fake.chmod(0o755)
    return fake


def audit(tmp_path: Path, report: dict | None, returncode: int, *, strict: bool = False):
    env = {**os.environ, "LOOKOUT_AUDIT_STRICT": "1" if strict else ""}
    fake = fake_pip_audit(tmp_path, report, returncode)
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--pip-audit", str(fake)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_a_known_vulnerable_pin_fails_the_audit_and_names_the_fix(tmp_path):
    done = audit(tmp_path, VULNERABLE, 1)

    assert done.returncode == 1
    assert "django 3.2.0: PYSEC-2021-98 (fixed in 3.2.1)" in done.stderr


def test_a_clean_lock_passes(tmp_path):
    done = audit(tmp_path, CLEAN, 0)

    assert done.returncode == 0
    assert "1 packages, no known vulnerability" in done.stdout


@pytest.mark.parametrize("report", [None, NOT_ANSWERED], ids=["unreachable", "no answers"])
def test_no_service_is_a_loud_warning_or_an_error_when_strict(tmp_path, report):
    relaxed = audit(tmp_path, report, 1 if report is None else 0)
    strict = audit(tmp_path, report, 1 if report is None else 0, strict=True)

    assert relaxed.returncode == 0
    assert "WARNING: dependency audit NOT DONE" in relaxed.stderr
    assert strict.returncode == 2


def test_make_lint_runs_the_audit_over_both_locks():
    makefile = (ROOT / "Makefile").read_text()
    lint = makefile.split("\nlint:", 1)[1].split("\n\n", 1)[0]

    assert "scripts/audit-dependencies.py" in lint
    assert '"requirements.txt", "requirements-dev.txt"' in SCRIPT.read_text()


# --- end to end: the real pip-audit, against a local vulnerability service -------------

CLEAN_LOCK = (
    "requests==2.34.2 \\\n"
    "    --hash=sha256:0604e84c4fb698a5e53e5857b5aea945b2f19a18f25f10b8748dbdf935788927\n"
)
ADVISORIES = [Advisory(id="PYSEC-2021-98", package="django", version="3.2.0", fixed="3.2.1")]


def audit_against(url: str, lock: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--service", "osv", "--osv-url", url, str(lock)],
        capture_output=True,
        text=True,
        env={**os.environ, "LOOKOUT_AUDIT_STRICT": "1"},
        cwd=ROOT,
        timeout=300,
    )


@pytest.mark.integration
def test_the_real_pip_audit_fails_a_known_vulnerable_pin_from_a_local_service(tmp_path):
    lock = tmp_path / "requirements.txt"
    lock.write_text(VULNERABLE_LOCK)

    with osv_receiver(ADVISORIES) as service:
        done = audit_against(service.url, lock)

    assert ("django", "3.2.0") in service.queries
    assert done.returncode == 1, done.stderr
    assert "django 3.2.0: PYSEC-2021-98 (fixed in 3.2.1)" in done.stderr


@pytest.mark.integration
def test_the_real_pip_audit_passes_a_lock_without_advisories_from_a_local_service(tmp_path):
    lock = tmp_path / "requirements.txt"
    lock.write_text(CLEAN_LOCK)

    with osv_receiver(ADVISORIES) as service:
        done = audit_against(service.url, lock)

    assert service.queries == [("requests", "2.34.2")]
    assert done.returncode == 0, done.stderr
    assert "1 packages, no known vulnerability" in done.stdout


# --- end to end: the real pip-audit and the real vulnerability service -----------------

# Django 3.2.0 has published advisories (e.g. PYSEC-2021-98, fixed in 3.2.1). The hash is a
# placeholder, never checked: pip-audit reads a hashed lock without downloading anything.
VULNERABLE_LOCK = (
    "django==3.2.0 \\\n"
    "    --hash=sha256:0604e84c4fb698a5e53e5857b5aea945b2f19a18f25f10b8748dbdf935788927\n"
)


def real_audit(*locks: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), *locks],
        capture_output=True,
        text=True,
        env={**os.environ, "LOOKOUT_AUDIT_STRICT": "1"},
        cwd=ROOT,
        timeout=900,
    )


def skip_when_not_audited(done: subprocess.CompletedProcess[str]) -> None:
    """Strict mode exits 2 when the service answered for no package: say why and skip."""
    if done.returncode == 2:
        reason = done.stderr.strip().splitlines()[0] if done.stderr.strip() else "no output"
        pytest.skip(f"the vulnerability service cannot be used from here: {reason}")


@pytest.mark.integration
def test_end_to_end_a_known_vulnerable_pin_fails_the_real_audit(tmp_path):
    lock = tmp_path / "requirements.txt"
    lock.write_text(VULNERABLE_LOCK)

    done = real_audit(str(lock))

    skip_when_not_audited(done)
    assert done.returncode == 1, done.stderr
    assert "django 3.2.0:" in done.stderr


@pytest.mark.integration
def test_end_to_end_our_own_locks_pass_the_real_audit():
    done = real_audit()

    skip_when_not_audited(done)
    assert done.returncode == 0, done.stderr
    assert "no known vulnerability" in done.stdout
