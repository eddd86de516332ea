"""`make run` tells the truth at start-up: a busy port is named in one line before
anything else is printed, and a child process that dies stops the stack. Its access log
is the image's (config/gunicorn.py): a wall-screen token never reaches the terminal."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from django.core.management import call_command

from dashboard.management.commands import run_stack
from tests.support.wall_screen import wait_until_answering, wall_open, wall_token_create

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port something else is listening on."""
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        yield server.getsockname()[1]


def stack_env(tmp_path: Path, **ports: int) -> dict[str, str]:
    env = {
        **os.environ,
        "LOOKOUT_VAR_DIR": str(tmp_path),
        "DATABASE_URL": f"sqlite:///{tmp_path}/lookout.sqlite3",
        "LOOKOUT_PORT": str(free_port()),
        "LOOKOUT_SIMULATOR_WORKFLOW_PORT": str(free_port()),
        "LOOKOUT_SIMULATOR_STORAGE_PORT": str(free_port()),
        "LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT": str(free_port()),
    }
    env.update({name: str(port) for name, port in ports.items()})
    return env


def check_ports(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "manage.py", "run_stack", "--check-ports", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    ("variable", "what"),
    [
        ("LOOKOUT_PORT", "web server"),
        ("LOOKOUT_SIMULATOR_WORKFLOW_PORT", "simulator's workflow service"),
        ("LOOKOUT_SIMULATOR_STORAGE_PORT", "simulator's storage service"),
        ("LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT", "simulator's workflow service 2"),
    ],
)
def test_a_busy_port_is_named_in_one_line_and_exits_1(tmp_path, busy_port, variable, what):
    result = check_ports(stack_env(tmp_path, **{variable: busy_port}))

    assert result.returncode == 1
    assert result.stdout == ""
    assert result.stderr.strip().splitlines() == [
        f"Port {busy_port} on 127.0.0.1 ({what}) is already in use: stop what is using it "
        f"or set {variable} to a free port."
    ]


def test_free_ports_pass_in_silence(tmp_path):
    result = check_ports(stack_env(tmp_path))

    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_without_the_simulator_its_ports_do_not_matter(tmp_path, busy_port):
    env = stack_env(tmp_path, LOOKOUT_SIMULATOR_WORKFLOW_PORT=busy_port)

    assert check_ports(env, "--no-simulator").returncode == 0


def test_make_run_on_a_busy_port_stops_before_printing_the_login(tmp_path, busy_port):
    env = stack_env(tmp_path, LOOKOUT_PORT=busy_port)

    result = subprocess.run(
        ["make", "--no-print-directory", "run", f"PY={sys.executable}", "RUNTIME_STAMP="],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )

    assert result.returncode != 0
    assert "password" not in result.stdout + result.stderr
    assert result.stdout == ""
    assert f"Port {busy_port} on 127.0.0.1 (web server) is already in use" in result.stderr
    assert not (tmp_path / "demo-admin-password").exists()


def test_a_child_that_dies_stops_the_stack_with_its_name_and_exit_code(
    tmp_path, monkeypatch, capsys
):
    sleeper = [sys.executable, "-c", "import time; time.sleep(60)"]
    crasher = [sys.executable, "-c", "import sys, time; time.sleep(0.5); sys.exit(3)"]
    monkeypatch.setattr(
        run_stack.Command,
        "_commands",
        lambda self, options: [("sleeper", sleeper), ("crasher", crasher)],
    )
    started = []
    real_popen = subprocess.Popen

    def popen(*args, **kwargs):
        started.append(real_popen(*args, **kwargs))
        return started[-1]

    monkeypatch.setattr(run_stack.subprocess, "Popen", popen)

    with pytest.raises(SystemExit) as exited:
        call_command("run_stack", "--no-simulator", "--port", str(free_port()))

    assert exited.value.code == 1
    assert "crasher stopped with exit code 3; stopping the others" in capsys.readouterr().err
    assert all(process.poll() is not None for process in started)  # the sleeper too


def test_make_run_never_prints_a_wall_token(tmp_path):
    env = {**stack_env(tmp_path), "REDIS_URL": "", "LOG_LEVEL": "INFO"}
    base = f"http://127.0.0.1:{env['LOOKOUT_PORT']}"
    out_path, err_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with out_path.open("wb") as out, err_path.open("wb") as err:
        stack = subprocess.Popen(
            ["make", "--no-print-directory", "run", f"PY={sys.executable}", "RUNTIME_STAMP="],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=err,
            start_new_session=True,  # Ctrl-C reaches make and the stack as in a terminal
        )
    try:
        wait_until_answering(base, seconds=90, server=stack)  # ~20 s here
        token = wall_token_create(env)
        wall_open(base, token)
        time.sleep(1)  # the access log line is written after the answer
    finally:
        os.killpg(stack.pid, signal.SIGINT)
        try:
            stack.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(stack.pid, signal.SIGKILL)
            stack.wait()

    printed = out_path.read_text() + err_path.read_text()
    assert len(token) == 43
    assert token not in printed
    # The access log is on, and scrubbed: the request is there without its token.
    assert "GET /wall/[redacted]/ HTTP/1.1" in printed
    assert '"GET /wall/ HTTP/1.1" 200' in printed


def stack_options(**options: object) -> dict[str, object]:
    """run_stack's options as its parser gives them, changed by `options`."""
    parser = run_stack.Command().create_parser("manage.py", "run_stack")
    return {**vars(parser.parse_args([])), "port": 8000, **options}


DEMO_PORTS = {
    "LOOKOUT_SIMULATOR_WORKFLOW_PORT": 18001,
    "LOOKOUT_SIMULATOR_STORAGE_PORT": 18002,
    "LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT": 18003,
}


def test_the_demo_serves_two_pipelines_and_hands_the_second_to_lookout(
    tmp_path, settings, monkeypatch
):
    settings.VAR_DIR = tmp_path
    for variable, port in DEMO_PORTS.items():
        setattr(settings, variable, port)
        monkeypatch.setenv(variable, str(port))
    for variable in (
        "LOOKOUT_PIPELINES_FILE",
        "LOOKOUT_WORKFLOW_URL",
        "LOOKOUT_WORKFLOW_UI_URL",
        "LOOKOUT_WORKFLOW_DASHBOARD_USER",
    ):
        monkeypatch.delenv(variable, raising=False)
    command = run_stack.Command()
    options = stack_options()

    simulator = dict(command._commands(options))["simulator"]
    env = {**command._child_env(options), "LOOKOUT_VAR_DIR": str(tmp_path)}
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django, json; django.setup(); from django.conf import settings; "
            "print(json.dumps([{**p, 'full_view': bool(p.get('dashboard_user') and "
            "p.get('dashboard_password'))} for p in settings.LOOKOUT_PIPELINES]))",
        ],
        cwd=ROOT,
        env={**env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=60,
    )

    flags = dict(zip(simulator[3::2], simulator[4::2], strict=False))
    assert flags["--pipelines"] == "2"
    assert flags["--workflow-port"] == "18001"
    assert flags["--extra-workflow-ports"] == "18003"
    assert flags["--pipeline-speeds"] == "1,0.7"
    assert int(flags["--source-items"]) > 0
    assert [port for _, _, port in command._ports(options)] == [8000, 18001, 18002, 18003]
    assert loaded.returncode == 0, loaded.stderr
    pipelines = json.loads(loaded.stdout.strip().splitlines()[-1])
    assert [(p["slug"], p["url"], p["ui_url"]) for p in pipelines] == [
        ("default", "http://127.0.0.1:18001", "http://127.0.0.1:18001"),
        ("pipeline-2", "http://127.0.0.1:18003", "http://127.0.0.1:18003"),
    ]
    assert pipelines[1]["key"] == "demo-key"
    # The demo shows both modes: the first pipeline signs in to its simulated dashboard.
    assert [p["full_view"] for p in pipelines] == [True, False]
    assert flags["--dashboard-user"] == env["LOOKOUT_WORKFLOW_DASHBOARD_USER"]
    assert flags["--dashboard-password"] == env["LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD"]
    assert "demo-key" not in (tmp_path / "demo-pipelines.json").read_text()
    assert command._simulator_line(options) == (
        "Simulated pipelines: default on http://127.0.0.1:18001, pipeline-2 on "
        "http://127.0.0.1:18003; storage service on http://127.0.0.1:18002"
    )


def test_one_pipeline_or_no_simulator_needs_no_pipelines_file(tmp_path, settings, monkeypatch):
    settings.VAR_DIR = tmp_path
    monkeypatch.delenv("LOOKOUT_PIPELINES_FILE", raising=False)
    command = run_stack.Command()

    for options in (stack_options(pipelines=1), stack_options(no_simulator=True)):
        env = command._child_env(options)
        assert "LOOKOUT_PIPELINES_FILE" not in env
    assert not (tmp_path / "demo-pipelines.json").exists()
    assert [what for what, _, _ in command._ports(stack_options(pipelines=1))][-1] == (
        "simulator's storage service"
    )
