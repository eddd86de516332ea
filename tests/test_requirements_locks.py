"""The lock files: requirements.txt (runtime, what the image installs) and requirements-dev.txt
(tests and tools on top of it), both written by `make lock` from the .in files next to them.

These read the files only; they check that every package is pinned and hashed, that the
runtime lock carries no test tool, that the dev lock holds the runtime lock at the same
versions, and that the locks still match the pins in the .in files.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ["requirements.txt", "requirements-dev.txt"]
TEST_TOOLS = {
    "pytest",
    "pytest-django",
    "pytest-socket",
    "pytest-timeout",
    "responses",
    "time-machine",
    "playwright",
    "ruff",
    "mypy",
    "django-stubs",
    "djangorestframework-stubs",
    "celery-types",
    "types-requests",
    "types-defusedxml",
    "import-linter",
    "pip-tools",
    "hypothesis",
    "locust",
}
PIN = re.compile(r"(?P<name>[A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==(?P<version>\S+)")


def normalized(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def entries(path: str) -> list[str]:
    """The file's requirement entries, continued lines joined, comments and blanks dropped."""
    joined = re.sub(r"\\\n", " ", (ROOT / path).read_text())
    lines = (line.split(" #", 1)[0].strip() for line in joined.splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def pins(path: str) -> dict[str, str]:
    """Package name -> version for every `name==version` entry of PATH."""
    found = {}
    for entry in entries(path):
        match = PIN.match(entry)
        if match:
            found[normalized(match["name"])] = match["version"]
    return found


def in_file_pins(path: str) -> dict[str, str]:
    """The pins an .in file asks for, following its -r includes (not its -c constraints)."""
    found = {}
    for entry in entries(path):
        if entry.startswith(("-r ", "--requirement ")):
            found.update(in_file_pins(entry.split(maxsplit=1)[1]))
        elif not entry.startswith("-"):
            match = PIN.fullmatch(entry)
            assert match, f"{path}: {entry!r} is not pinned with =="
            found[normalized(match["name"])] = match["version"]
    return found


@pytest.mark.parametrize("path", LOCKS)
def test_every_locked_package_is_pinned_and_hashed(path):
    locked = entries(path)
    assert locked, f"{path} is empty"
    for entry in locked:
        requirement, *options = entry.split()
        assert PIN.fullmatch(requirement) and "[" not in requirement, f"{path}: {entry!r}"
        assert options, f"{path}: {requirement} has no hash"
        for option in options:
            assert re.fullmatch(r"--hash=sha256:[0-9a-f]{64}", option), f"{path}: {option}"


@pytest.mark.parametrize("path", LOCKS)
def test_the_locks_name_no_index_and_no_path_of_a_machine(path):
    text = (ROOT / path).read_text()
    for word in ("--index-url", "--extra-index-url", "--find-links", "--trusted-host", "://"):
        assert word not in text, f"{path} contains {word!r}"
    assert not re.search(r"(^|[\s=])(/|~/|[A-Za-z]:\\)", text), f"{path} names a local path"
    assert "make lock" in text, f"{path} should say it is written by `make lock`"


def test_the_runtime_lock_holds_no_test_tool():
    assert not TEST_TOOLS & set(pins("requirements.txt"))


def test_the_dev_lock_holds_the_test_tools():
    assert set(pins("requirements-dev.txt")) >= TEST_TOOLS


def test_the_dev_lock_holds_the_whole_runtime_lock_at_the_same_versions():
    runtime, dev = pins("requirements.txt"), pins("requirements-dev.txt")
    assert {name: dev.get(name) for name in runtime} == runtime


@pytest.mark.parametrize(
    ("source", "lock"),
    [("requirements.in", "requirements.txt"), ("requirements-dev.in", "requirements-dev.txt")],
)
def test_the_locks_match_the_pins_in_the_in_files(source, lock):
    # A pin changed in an .in file without `make lock` leaves its lock behind.
    wanted, locked = in_file_pins(source), pins(lock)
    assert wanted
    assert {name: locked.get(name) for name in wanted} == wanted


def test_the_dev_requirements_are_constrained_by_the_runtime_lock():
    assert entries("requirements-dev.in")[0] == "-c requirements.txt"
