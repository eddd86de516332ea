"""The production stack: docker-compose.yml, the Dockerfile and .dockerignore.

Docker does not run here, so these tests check that every command the stack starts
names something that exists in the project and parses with that program's own
argument parser, and that the services are wired to each other the way the settings
expect.
"""

from __future__ import annotations

import fnmatch
import importlib
import json
import re
import shlex
from pathlib import Path, PurePosixPath
from typing import Any

import dj_database_url
import pytest
import yaml
from celery import Celery
from celery.app.utils import find_app
from celery.bin.celery import celery as celery_cli
from django.core.management import get_commands, load_command_class
from gunicorn.config import Config as GunicornConfig

from simulator.config import build_arg_parser

ROOT = Path(__file__).resolve().parent.parent
DJANGO_SERVICES = ["migrate", "web", "worker", "beat"]
LONG_RUNNING_DJANGO_SERVICES = ["web", "worker", "beat"]


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return compose["services"]


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, with continued lines joined and comments dropped."""
    joined = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    instructions = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            instructions.append((keyword.upper(), rest.strip()))
    return instructions


def dockerfile_values(keyword: str) -> list[str]:
    return [rest for name, rest in dockerfile_instructions() if name == keyword]


def dockerfile_env() -> dict[str, str]:
    env = {}
    for rest in dockerfile_values("ENV"):
        for item in shlex.split(rest):
            name, _, value = item.partition("=")
            env[name] = value
    return env


def as_argv(command: str | list[str]) -> list[str]:
    return shlex.split(command) if isinstance(command, str) else list(command)


def command_of(service: dict[str, Any]) -> list[str]:
    """The service's command, or the image's CMD when it sets none."""
    if "command" in service:
        return as_argv(service["command"])
    return json.loads(dockerfile_values("CMD")[-1])


def interpolated(value: str) -> str:
    """Stand in for compose's ${VAR...} interpolation with a plain word."""
    return re.sub(r"\$\{([A-Z_]+)[^}]*\}", lambda match: f"value-of-{match[1].lower()}", value)


def parse_or_fail(parser: Any, args: list[str], what: str) -> Any:
    try:
        return parser.parse_args(args)
    except SystemExit:
        pytest.fail(f"{what} does not accept the options {args}")


def assert_gunicorn_command(args: list[str]) -> None:
    parsed = parse_or_fail(GunicornConfig().parser(), args, "gunicorn")
    (app_path,) = parsed.args
    module_name, _, attribute = app_path.partition(":")
    module = importlib.import_module(module_name)
    assert callable(getattr(module, attribute or "application"))


def assert_celery_command(args: list[str]) -> None:
    assert args[:2] == ["-A", "config"], "the Celery app is config (config/celery.py)"
    assert isinstance(find_app(args[1]), Celery)
    subcommand, *options = args[2:]
    command = celery_cli.commands.get(subcommand)
    assert command is not None, f"celery has no {subcommand!r} command"
    known = {flag for param in command.params for flag in param.opts + param.secondary_opts}
    for option in options:
        if option.startswith("-"):
            assert option.split("=")[0] in known, f"celery {subcommand} has no {option}"


def assert_python_command(args: list[str]) -> None:
    if args[0] == "-m":
        assert args[1] == "simulator", f"unexpected module {args[1]}"
        assert (ROOT / "simulator" / "__main__.py").is_file()
        parse_or_fail(build_arg_parser(), args[2:], "python -m simulator")
    else:
        assert args[0] == "manage.py" and (ROOT / "manage.py").is_file()
        name, *options = args[1:]
        app_name = get_commands().get(name)
        assert app_name is not None, f"manage.py has no {name!r} command"
        parser = load_command_class(app_name, name).create_parser("manage.py", name)
        parse_or_fail(parser, options, f"manage.py {name}")


def assert_command_exists(argv: list[str]) -> None:
    program, *args = argv
    checks = {
        "gunicorn": assert_gunicorn_command,
        "celery": assert_celery_command,
        "python": assert_python_command,
    }
    assert program in checks, f"unexpected program {program!r}"
    checks[program](args)


def option_value(argv: list[str], option: str) -> str:
    return argv[argv.index(option) + 1]


def is_dockerignored(path: str) -> bool:
    """Whether .dockerignore keeps PATH (or a folder above it) out of the build context."""
    patterns = [
        line.strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    parts = PurePosixPath(path).parts
    candidates = ["/".join(parts[: end + 1]) for end in range(len(parts))]
    ignored = False
    for pattern in patterns:
        negated = pattern.startswith("!")
        pattern = pattern.lstrip("!").strip("/")
        for candidate in candidates:
            name = candidate.rsplit("/", 1)[-1]
            deep = pattern.startswith("**/") and fnmatch.fnmatchcase(name, pattern[3:])
            if deep or fnmatch.fnmatchcase(candidate, pattern):
                ignored = not negated
    return ignored


# --- Services and their commands -----------------------------------------------


def test_it_defines_the_production_services_a_migrate_step_and_the_simulator(services):
    assert {"web", "worker", "beat", "redis", "postgres", "migrate", "simulator"} <= set(services)


@pytest.mark.parametrize("name", [*DJANGO_SERVICES, "simulator"])
def test_every_command_names_something_in_the_project(services, name):
    assert_command_exists(command_of(services[name]))


def test_the_web_service_runs_gunicorn_on_config_wsgi(services):
    argv = command_of(services["web"])
    assert argv[0] == "gunicorn"
    assert "config.wsgi" in argv
    assert option_value(argv, "--bind").endswith(":8000")


def test_the_worker_and_beat_run_the_config_celery_app(services):
    assert command_of(services["worker"])[:4] == ["celery", "-A", "config", "worker"]
    assert command_of(services["beat"])[:4] == ["celery", "-A", "config", "beat"]


def test_the_migrate_step_applies_migrations_once_and_stops(services):
    migrate = services["migrate"]
    assert command_of(migrate)[:3] == ["python", "manage.py", "migrate"]
    assert "--noinput" in command_of(migrate)
    assert migrate["restart"] == "no"


def test_a_command_that_is_not_in_the_project_is_refused():
    # Guards the checker itself: a typo in a command must not pass.
    for argv in (
        ["celery", "-A", "config", "worker", "--no-such-option"],
        ["python", "manage.py", "no_such_command"],
        ["python", "-m", "simulator", "--no-such-option"],
        ["gunicorn", "config.no_such_module"],
    ):
        with pytest.raises((AssertionError, ImportError, pytest.fail.Exception)):
            assert_command_exists(argv)


# --- Environment -------------------------------------------------------------------


@pytest.mark.parametrize("name", DJANGO_SERVICES)
def test_django_services_read_the_env_file_in_production_mode(services, name):
    service = services[name]
    env_file = service["env_file"]
    assert ".env" in ([env_file] if isinstance(env_file, str) else env_file)
    assert str(service["environment"]["LOOKOUT_PRODUCTION"]).lower() == "true"


@pytest.mark.parametrize("name", DJANGO_SERVICES)
def test_django_services_use_the_compose_postgres(services, name):
    database = dj_database_url.parse(interpolated(services[name]["environment"]["DATABASE_URL"]))
    postgres_env = services["postgres"]["environment"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert database["HOST"] == "postgres"
    assert database["NAME"] == postgres_env["POSTGRES_DB"]
    assert database["USER"] == postgres_env["POSTGRES_USER"]
    assert database["PASSWORD"] == interpolated(postgres_env["POSTGRES_PASSWORD"])


@pytest.mark.parametrize("name", DJANGO_SERVICES)
def test_django_services_use_the_compose_redis(services, name):
    redis_url = services[name]["environment"]["REDIS_URL"]
    assert re.fullmatch(r"redis://redis:6379/\d+", redis_url)


def test_postgres_keeps_its_data_in_a_named_volume_and_has_a_healthcheck(compose, services):
    postgres = services["postgres"]
    volume, _, target = postgres["volumes"][0].partition(":")
    assert volume in compose["volumes"]
    assert target == "/var/lib/postgresql/data"
    assert "pg_isready" in " ".join(as_argv(postgres["healthcheck"]["test"]))


def test_postgres_does_not_receive_lookout_secrets(services):
    # The env file holds upstream keys and the SECRET_KEY; postgres needs none of them.
    assert "env_file" not in services["postgres"]


@pytest.mark.parametrize("name", LONG_RUNNING_DJANGO_SERVICES)
def test_django_services_wait_for_healthy_stores_and_the_migrations(services, name):
    depends_on = services[name]["depends_on"]
    assert depends_on["postgres"]["condition"] == "service_healthy"
    assert depends_on["redis"]["condition"] == "service_healthy"
    assert depends_on["migrate"]["condition"] == "service_completed_successfully"


def test_every_healthy_condition_has_a_healthcheck_to_wait_for(services):
    for service in services.values():
        for name, dependency in (service.get("depends_on") or {}).items():
            if dependency["condition"] == "service_healthy":
                assert "healthcheck" in services[name], f"{name} has no healthcheck"


def test_beat_keeps_its_schedule_in_a_named_volume(compose, services):
    beat = services["beat"]
    schedule = PurePosixPath(option_value(command_of(beat), "--schedule"))
    mounts = dict(reversed(volume.split(":")[:2]) for volume in beat["volumes"])
    assert mounts.get(str(schedule.parent)) in compose["volumes"]


def test_the_web_port_is_published_on_loopback_only(services):
    # Only the TLS proxy on the host may reach gunicorn; it trusts X-Forwarded-Proto.
    (port,) = services["web"]["ports"]
    assert port == "127.0.0.1:8000:8000"


# --- Demo profile and simulator ----------------------------------------------------------


def test_the_simulator_is_only_in_the_demo_profile(services):
    assert services["simulator"]["profiles"] == ["demo"]
    for name, service in services.items():
        if name != "simulator":
            assert "profiles" not in service, f"{name} would not start without a profile"
            assert "simulator" not in (service.get("depends_on") or {})


def test_the_simulator_listens_on_every_interface_of_its_container(services):
    argv = command_of(services["simulator"])
    assert build_arg_parser().parse_args(argv[3:]).host == "0.0.0.0"


def test_the_demo_docs_point_lookout_at_the_simulator(services):
    argv = command_of(services["simulator"])
    simulator = build_arg_parser().parse_args(argv[3:])
    text = (ROOT / "docker-compose.yml").read_text()
    assert f"LOOKOUT_WORKFLOW_URL=http://simulator:{simulator.workflow_port}" in text
    assert f"LOOKOUT_STORAGE_URL=http://simulator:{simulator.storage_port}" in text
    for service in ("WORKFLOW", "STORAGE"):
        assert f"LOOKOUT_{service}_USER={simulator.user}" in text
        assert f"LOOKOUT_{service}_KEY={simulator.key}" in text


# --- Dockerfile ---------------------------------------------------------------------------


def test_the_image_is_python_3_11_slim():
    assert dockerfile_values("FROM") == ["python:3.11-slim"]


def test_the_image_runs_as_a_non_root_user():
    (user,) = dockerfile_values("USER")
    assert user not in {"root", "0"}
    assert any("useradd" in run and user in run for run in dockerfile_values("RUN"))


def test_the_image_installs_only_the_hashed_runtime_lock():
    (install,) = [run for run in dockerfile_values("RUN") if "pip install" in run]
    words = shlex.split(install)
    assert "--require-hashes" in words
    files = [words[at + 1] for at, word in enumerate(words) if word in {"-r", "--requirement"}]
    assert files == ["requirements.txt"], "the test and tool lock stays out of the image"
    assert not any(word.startswith(("-c", "--constraint", "-e", "--editable")) for word in words)


def test_the_image_copies_the_runtime_lock_before_the_code():
    copies = [shlex.split(copy) for copy in dockerfile_values("COPY")]
    assert copies[0] == ["requirements.txt", "./"]
    assert copies[-1] == [".", "."]


def test_every_file_the_dockerfile_copies_exists_and_reaches_the_build_context():
    for copy in dockerfile_values("COPY"):
        *sources, _destination = [arg for arg in shlex.split(copy) if not arg.startswith("--")]
        for source in sources:
            assert (ROOT / source).exists(), source
            if source != ".":
                assert not is_dockerignored(source), source


@pytest.mark.parametrize(
    "path",
    [
        "manage.py",
        "requirements.txt",
        "config/wsgi.py",
        "config/settings.py",
        "simulator/__main__.py",
        "static/dashboard/css/app.css",
        "templates/base.html",
    ],
)
def test_the_dockerignore_keeps_the_project_in_the_image(path):
    assert (ROOT / path).exists()
    assert not is_dockerignored(path)


@pytest.mark.parametrize(
    "path",
    [
        ".env",
        ".env.production",
        ".git/config",
        ".venv/bin/python",
        "var/lookout.sqlite3",
        "config/__pycache__/settings.cpython-311.pyc",
    ],
)
def test_the_dockerignore_keeps_secrets_and_local_state_out(path):
    assert is_dockerignored(path)


def test_the_dockerignore_keeps_the_env_example():
    assert not is_dockerignored(".env.example")


def test_the_image_collects_static_files_in_production_mode_at_build_time():
    (collect,) = [run for run in dockerfile_values("RUN") if "collectstatic" in run]
    words = shlex.split(collect)
    assert "LOOKOUT_PRODUCTION=true" in words
    assert any(word.startswith("SECRET_KEY=") and len(word) > len("SECRET_KEY=") for word in words)
    # The build-time key is scoped to that one RUN, never baked into the image's environment.
    assert "SECRET_KEY" not in dockerfile_env()


def test_no_volume_hides_the_static_files_baked_into_the_image(services):
    (workdir,) = dockerfile_values("WORKDIR")
    static_root = PurePosixPath(workdir) / "var" / "staticfiles"
    for name in DJANGO_SERVICES:
        for volume in services[name].get("volumes", []):
            target = PurePosixPath(volume.split(":")[1])
            assert target != static_root and target not in static_root.parents, name


def test_the_image_makes_the_beat_schedule_folder_writable(services):
    beat = services["beat"]
    schedule_dir = PurePosixPath(option_value(command_of(beat), "--schedule")).parent
    (user,) = dockerfile_values("USER")
    (collect,) = [run for run in dockerfile_values("RUN") if "collectstatic" in run]
    assert f"mkdir -p {schedule_dir}" in collect
    owned = PurePosixPath(re.search(rf"chown -R {user}:{user} (\S+)", collect)[1])
    assert owned == schedule_dir or owned in schedule_dir.parents


def test_the_image_exposes_the_port_web_publishes(services):
    assert dockerfile_values("EXPOSE") == ["8000"]
    assert services["web"]["ports"][0].endswith(":8000")


def test_the_default_gunicorn_options_in_the_image_parse():
    args = shlex.split(dockerfile_env()["GUNICORN_CMD_ARGS"])
    parsed = parse_or_fail(GunicornConfig().parser(), args, "gunicorn")
    assert parsed.workers >= 1
