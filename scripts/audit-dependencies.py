#!/usr/bin/env python3
"""`make lint`'s dependency audit: pip-audit over both lock files, by their hashes.

Exit 1 when the vulnerability service names a vulnerability in any pinned package (the
fix versions are printed). When the service cannot be reached, or answers for none of the
packages (a mirror without PyPI's JSON API, no route to it), the lock has not been
audited: that is a loud warning and exit 0, so a machine without the service can still
lint, unless LOOKOUT_AUDIT_STRICT=1 (CI with network access), which makes it exit 2.

    scripts/audit-dependencies.py [--pip-audit PATH] [--service pypi|osv] [--osv-url URL] [LOCK ...]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_LOCKS = ["requirements.txt", "requirements-dev.txt"]


def run_pip_audit(
    pip_audit: str, service: str, locks: list[str], osv_url: str | None = None
) -> tuple[int, dict | None, str]:
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "audit.json"
        command = [pip_audit, "--require-hashes", "--disable-pip", "--progress-spinner", "off"]
        command += ["--vulnerability-service", service, "--format", "json", "--output", str(report)]
        if osv_url:
            command += ["--osv-url", osv_url]
        for lock in locks:
            command += ["--requirement", lock]
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
        try:
            parsed = json.loads(report.read_text())
        except (OSError, ValueError):
            parsed = None
    return done.returncode, parsed, done.stderr


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pip-audit", default=str(Path(sys.executable).parent / "pip-audit"))
    parser.add_argument("--service", default="pypi", choices=["pypi", "osv"])
    parser.add_argument(
        "--osv-url", help="an OSV query endpoint other than api.osv.dev (with --service osv)"
    )
    parser.add_argument("locks", nargs="*", default=DEFAULT_LOCKS)
    args = parser.parse_args(argv)
    strict = os.environ.get("LOOKOUT_AUDIT_STRICT", "") in {"1", "true", "yes"}

    returncode, report, stderr = run_pip_audit(
        args.pip_audit, args.service, args.locks, args.osv_url
    )
    dependencies = (report or {}).get("dependencies", [])
    vulnerable = [d for d in dependencies if d.get("vulns")]
    if vulnerable:
        print("Dependency audit FAILED: known vulnerabilities in the lock:", file=sys.stderr)
        for dependency in vulnerable:
            for vuln in dependency["vulns"]:
                fixes = ", ".join(vuln.get("fix_versions") or []) or "no fix yet"
                print(
                    f"  {dependency['name']} {dependency.get('version', '?')}: {vuln['id']}"
                    f" (fixed in {fixes})",
                    file=sys.stderr,
                )
        return 1

    audited = [d for d in dependencies if "skip_reason" not in d]
    if report is None or not audited:
        last = (stderr.strip().splitlines() or ["no output"])[-1]
        reason = (
            f"pip-audit could not reach the {args.service} vulnerability service ({last})"
            if report is None
            else f"the {args.service} vulnerability service answered for none of the "
            f"{len(dependencies)} packages (first: {dependencies[0]['skip_reason']})"
            if dependencies
            else "the lock lists no packages"
        )
        print(f"WARNING: dependency audit NOT DONE: {reason}.", file=sys.stderr)
        if strict:
            return 2
        print("  (LOOKOUT_AUDIT_STRICT=1 makes this an error.)", file=sys.stderr)
        return 0
    if returncode != 0:
        print(f"Dependency audit: pip-audit failed: {stderr.strip()}", file=sys.stderr)
        return returncode
    skipped = len(dependencies) - len(audited)
    note = f", {skipped} not found on the service" if skipped else ""
    print(f"Dependency audit: {len(audited)} packages, no known vulnerability{note}.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
