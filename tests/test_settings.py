"""Settings from the environment: strict readers, what good values switch on, and
that a bad value stops `manage.py check` with a message naming the variable.

Good values are checked by executing config/settings.py afresh in this process (fast,
and the Django settings the other tests use are untouched); bad values by running
`manage.py check` in a subprocess, the way an operator meets them.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import stat
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from types import ModuleType

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_bool, env_float, env_int, env_list, env_secret, env_str, env_url

ROOT = Path(__file__).resolve().parent.parent
SETTINGS_FILE = ROOT / "config" / "settings.py"
ENV_READER_CALL = re.compile(r"\benv_(str|bool|int|float|list|url|secret)\(\s*\"([A-Z0-9_]+)\"")


def settings_variables() -> dict[str, str]:
    """Every variable config/ reads through an env_* helper, with the helper's kind."""
    found = {}
    for module in (ROOT / "config").glob("*.py"):
        for kind, name in ENV_READER_CALL.findall(module.read_text()):
            found[name] = kind
    return found


def env_example() -> dict[str, str]:
    values = {}
    for line in (ROOT / ".env.example").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value
    return values


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """No settings variable from the developer's shell leaks into a test."""
    for name, kind in settings_variables().items():
        monkeypatch.delenv(name, raising=False)
        if kind == "secret":
            monkeypatch.delenv(f"{name}_FILE", raising=False)
    return monkeypatch


@pytest.fixture
def load_settings(clean_env: pytest.MonkeyPatch, tmp_path: Path):
    def load(**env: str) -> ModuleType:
        clean_env.setenv("LOOKOUT_VAR_DIR", str(tmp_path / "var"))
        for name, value in env.items():
            clean_env.setenv(name, value)
        spec = importlib.util.spec_from_file_location("settings_under_test", SETTINGS_FILE)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load


def run_check(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {"PATH": os.environ.get("PATH", ""), "LOOKOUT_VAR_DIR": str(tmp_path / "var")}
    return subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env={**base, **env},
        capture_output=True,
        text=True,
        timeout=60,
    )


def last_line(text: str) -> str:
    return text.strip().splitlines()[-1]


# --- config/env.py readers ---------------------------------------------------------


@pytest.mark.parametrize("raw", ["1", "true", "True", "YES", "on", " true "])
def test_env_bool_reads_true_spellings(clean_env, raw):
    clean_env.setenv("LOOKOUT_FLAG", raw)
    assert env_bool("LOOKOUT_FLAG", False) is True


@pytest.mark.parametrize("raw", ["0", "false", "FALSE", "no", "off"])
def test_env_bool_reads_false_spellings(clean_env, raw):
    clean_env.setenv("LOOKOUT_FLAG", raw)
    assert env_bool("LOOKOUT_FLAG", True) is False


@pytest.mark.parametrize("default", [True, False])
def test_env_bool_keeps_the_default_when_unset_or_blank(clean_env, default):
    assert env_bool("LOOKOUT_FLAG", default) is default
    clean_env.setenv("LOOKOUT_FLAG", "  ")
    assert env_bool("LOOKOUT_FLAG", default) is default


def test_env_bool_refuses_anything_else_and_names_the_variable(clean_env):
    clean_env.setenv("LOOKOUT_FLAG", "maybe")
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_FLAG.*'maybe'"):
        env_bool("LOOKOUT_FLAG", False)


def test_env_int_reads_a_whole_number_and_keeps_the_default_when_blank(clean_env):
    assert env_int("LOOKOUT_NUMBER", 7) == 7
    clean_env.setenv("LOOKOUT_NUMBER", "")
    assert env_int("LOOKOUT_NUMBER", 7) == 7
    clean_env.setenv("LOOKOUT_NUMBER", " 42 ")
    assert env_int("LOOKOUT_NUMBER", 7) == 42


@pytest.mark.parametrize("raw", ["soon", "1.5", "10s"])
def test_env_int_refuses_what_is_not_a_whole_number(clean_env, raw):
    clean_env.setenv("LOOKOUT_NUMBER", raw)
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_NUMBER must be a whole number"):
        env_int("LOOKOUT_NUMBER", 7)


def test_env_int_refuses_a_value_below_the_minimum(clean_env):
    clean_env.setenv("LOOKOUT_NUMBER", "0")
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_NUMBER must be at least 1"):
        env_int("LOOKOUT_NUMBER", 7, minimum=1)


def test_env_float_reads_a_number_and_checks_the_minimum(clean_env):
    clean_env.setenv("LOOKOUT_SECONDS", "2.5")
    assert env_float("LOOKOUT_SECONDS", 1.0, minimum=0.1) == 2.5
    clean_env.setenv("LOOKOUT_SECONDS", "0.01")
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_SECONDS must be at least 0.1"):
        env_float("LOOKOUT_SECONDS", 1.0, minimum=0.1)
    clean_env.setenv("LOOKOUT_SECONDS", "fast")
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_SECONDS must be a number"):
        env_float("LOOKOUT_SECONDS", 1.0)


def test_env_list_splits_on_commas_and_drops_blanks(clean_env):
    clean_env.setenv("LOOKOUT_HOSTS", " a.example.org, ,b.example.org ,")
    assert env_list("LOOKOUT_HOSTS", ["x"]) == ["a.example.org", "b.example.org"]


def test_env_list_gives_a_copy_of_the_default_when_unset_or_blank(clean_env):
    default = ["localhost"]
    hosts = env_list("LOOKOUT_HOSTS", default)
    hosts.append("changed")
    assert default == ["localhost"]
    clean_env.setenv("LOOKOUT_HOSTS", "")
    assert env_list("LOOKOUT_HOSTS", default) == ["localhost"]


def test_env_str_strips_spaces_and_keeps_the_default_when_blank(clean_env):
    clean_env.setenv("LOOKOUT_TEXT", "  value ")
    assert env_str("LOOKOUT_TEXT", "default") == "value"
    clean_env.setenv("LOOKOUT_TEXT", "")
    assert env_str("LOOKOUT_TEXT", "default") == "default"


def test_env_url_drops_the_trailing_slash(clean_env):
    clean_env.setenv("LOOKOUT_SERVICE_URL", "https://workflow.example.org:8443/base/")
    assert env_url("LOOKOUT_SERVICE_URL", "http://x") == "https://workflow.example.org:8443/base"


@pytest.mark.parametrize(
    "raw",
    ["ftp://x", "workflow.example.org", "http://", "https://:80", "http://h:port", "http://[::1"],
)
def test_env_url_refuses_what_is_not_an_http_url_with_a_host(clean_env, raw):
    clean_env.setenv("LOOKOUT_SERVICE_URL", raw)
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_SERVICE_URL must be an http"):
        env_url("LOOKOUT_SERVICE_URL", "http://x")


def test_env_secret_reads_the_file_named_by_the_file_variable(clean_env, tmp_path):
    secret = tmp_path / "key"
    secret.write_text("from-the-file\n")
    clean_env.setenv("LOOKOUT_TOKEN", "from-the-variable")
    clean_env.setenv("LOOKOUT_TOKEN_FILE", str(secret))
    assert env_secret("LOOKOUT_TOKEN") == "from-the-file"


def test_env_secret_falls_back_to_the_variable_then_the_default(clean_env):
    assert env_secret("LOOKOUT_TOKEN", "fallback") == "fallback"
    clean_env.setenv("LOOKOUT_TOKEN_FILE", "")
    clean_env.setenv("LOOKOUT_TOKEN", "from-the-variable")
    assert env_secret("LOOKOUT_TOKEN", "fallback") == "from-the-variable"


def test_env_secret_names_the_file_variable_when_the_file_is_missing(clean_env, tmp_path):
    clean_env.setenv("LOOKOUT_TOKEN_FILE", str(tmp_path / "missing"))
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_TOKEN_FILE cannot be read"):
        env_secret("LOOKOUT_TOKEN")


# --- Good values: what they switch on ------------------------------------------------


def test_no_environment_gives_the_embedded_default(load_settings, tmp_path):
    settings = load_settings()
    assert settings.DEBUG is False
    assert settings.LOOKOUT_PRODUCTION is False
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings.DATABASES["default"]["NAME"] == str(tmp_path / "var" / "lookout.sqlite3")
    assert settings.CACHES["default"]["BACKEND"].endswith("DatabaseCache")
    assert settings.CELERY_BROKER_URL == "lookoutfs://"
    assert [p["url"] for p in settings.LOOKOUT_PIPELINES] == ["http://127.0.0.1:8001"]
    assert settings.LOOKOUT_STORAGE["url"] == "http://127.0.0.1:8002"


def test_redis_url_switches_the_cache_and_the_broker_to_redis(load_settings):
    settings = load_settings(REDIS_URL="redis://cache.internal:6379/2")
    assert settings.CACHES["default"]["BACKEND"] == "config.cache.ResilientRedisCache"
    assert settings.CACHES["default"]["LOCATION"] == "redis://cache.internal:6379/2"
    assert settings.CELERY_BROKER_URL == "redis://cache.internal:6379/3"  # its own database
    assert settings.LOOKOUT_REDIS_RESULTS_URL == "redis://cache.internal:6379/4"
    assert not hasattr(settings, "CELERY_BROKER_TRANSPORT_OPTIONS")


def test_redis_databases_default_to_zero_and_keep_a_password_and_a_socket_query(load_settings):
    plain = load_settings(REDIS_URL="redis://:pw@cache.internal:6379")
    socket = load_settings(REDIS_URL="unix:///run/redis.sock?db=5")

    assert plain.CACHES["default"]["LOCATION"] == "redis://:pw@cache.internal:6379/0"
    assert plain.CELERY_BROKER_URL == "redis://:pw@cache.internal:6379/1"
    assert socket.CELERY_BROKER_URL == "unix:///run/redis.sock?db=6"


def test_one_redis_database_is_shared_with_key_prefixes_when_asked(load_settings):
    settings = load_settings(
        REDIS_URL="redis://cache.internal:6379/0", LOOKOUT_REDIS_SEPARATE_DATABASES="false"
    )

    assert settings.CACHES["default"]["LOCATION"] == settings.CELERY_BROKER_URL
    assert settings.CACHES["default"]["KEY_PREFIX"] == "dashboard"
    assert settings.CELERY_BROKER_TRANSPORT_OPTIONS == {"global_keyprefix": "lookout-broker:"}


def test_a_redis_database_without_room_for_the_broker_stops_loading(load_settings):
    with pytest.raises(ImproperlyConfigured, match="REDIS_URL"):
        load_settings(REDIS_URL="redis://cache.internal:6379/14")


def test_alert_delivery_time_must_leave_room_for_the_longest_send(load_settings):
    assert (
        load_settings(
            LOOKOUT_ALERT_DELIVERY_SECONDS="8", LOOKOUT_WEBHOOK_TIMEOUT="2", EMAIL_TIMEOUT="4"
        ).LOOKOUT_ALERT_DELIVERY_SECONDS
        == 8
    )
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_ALERT_DELIVERY_SECONDS"):
        load_settings(LOOKOUT_ALERT_DELIVERY_SECONDS="30", LOOKOUT_WEBHOOK_TIMEOUT="10")
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_ALERT_DELIVERY_SECONDS"):
        load_settings(LOOKOUT_ALERT_DELIVERY_SECONDS="8", EMAIL_TIMEOUT="5")


def test_session_lifetime_and_idle_timeout_come_from_the_environment(load_settings):
    default = load_settings()
    custom = load_settings(LOOKOUT_SESSION_MAX_HOURS="2", LOOKOUT_SESSION_IDLE_MINUTES="10")

    assert (default.SESSION_COOKIE_AGE, default.LOOKOUT_SESSION_IDLE_MINUTES) == (12 * 3600, 60)
    assert (custom.SESSION_COOKIE_AGE, custom.LOOKOUT_SESSION_IDLE_MINUTES) == (7200, 10)


def test_database_url_selects_postgres(load_settings):
    settings = load_settings(DATABASE_URL="postgres://lookout:pw@db.internal:5432/lookout")
    database = settings.DATABASES["default"]
    assert database["ENGINE"] == "django.db.backends.postgresql"
    assert (database["HOST"], database["NAME"]) == ("db.internal", "lookout")


def test_a_pipelines_file_adds_pipelines_with_keys_from_key_env_and_key_file(
    load_settings, tmp_path
):
    key_file = tmp_path / "west-key"
    key_file.write_text("west-secret\n")
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(
        json.dumps(
            [
                {
                    "slug": "east",
                    "name": "East",
                    "url": "https://east.example.org/",
                    "user": "lookout",
                    "key_env": "EAST_WORKFLOW_KEY",
                },
                {
                    "slug": "west",
                    "url": "https://west.example.org",
                    "user": "lookout",
                    "key_file": str(key_file),
                },
            ]
        )
    )
    settings = load_settings(
        LOOKOUT_PIPELINES_FILE=str(pipelines_file),
        EAST_WORKFLOW_KEY="east-secret",
        LOOKOUT_WORKFLOW_SLUG="main",
        LOOKOUT_WORKFLOW_URL="https://main.example.org",
    )
    pipelines = {p["slug"]: p for p in settings.LOOKOUT_PIPELINES}
    assert list(pipelines) == ["main", "east", "west"]
    assert pipelines["east"] == {
        "slug": "east",
        "name": "East",
        "url": "https://east.example.org",
        "user": "lookout",
        "key": "east-secret",
        "time_zone": "UTC",
        "ui_url": "https://east.example.org",
        "processing_configs": ["default", "automated"],
    }
    assert pipelines["west"]["key"] == "west-secret"
    assert pipelines["west"]["name"] == "west"


def test_secrets_can_come_from_files(load_settings, tmp_path):
    for name, value in [("secret", "s" * 60), ("workflow", "wf-key"), ("storage", "st-key")]:
        (tmp_path / name).write_text(value + "\n")
    settings = load_settings(
        SECRET_KEY_FILE=str(tmp_path / "secret"),
        LOOKOUT_WORKFLOW_KEY_FILE=str(tmp_path / "workflow"),
        LOOKOUT_STORAGE_KEY_FILE=str(tmp_path / "storage"),
    )
    assert settings.SECRET_KEY == "s" * 60
    assert settings.LOOKOUT_PIPELINES[0]["key"] == "wf-key"
    assert settings.LOOKOUT_STORAGE["key"] == "st-key"


def test_the_settings_offer_password_reset_only_with_an_email_host(load_settings):
    assert load_settings().LOOKOUT_PASSWORD_RESET is False
    with_mail = load_settings(EMAIL_HOST="smtp.example.org")
    assert with_mail.LOOKOUT_PASSWORD_RESET is True
    assert with_mail.EMAIL_HOST == "smtp.example.org"


def test_without_a_secret_key_one_is_made_on_first_start_private_and_kept(load_settings, tmp_path):
    first = load_settings().SECRET_KEY
    key_file = tmp_path / "var" / "secret_key"

    assert len(first) >= 50
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert key_file.read_text().strip() == first
    again = load_settings().SECRET_KEY  # the next start
    assert again == first
    assert "insecure" not in first


def test_two_installs_never_share_a_generated_key(clean_env, tmp_path):
    from config.secret_key import generated_secret_key

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()

    assert generated_secret_key(tmp_path / "a") != generated_secret_key(tmp_path / "b")


def test_a_generated_key_readable_by_others_is_made_private_again(load_settings, tmp_path):
    first = load_settings().SECRET_KEY
    key_file = tmp_path / "var" / "secret_key"
    key_file.chmod(0o644)

    again = load_settings().SECRET_KEY
    assert again == first
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600


def test_a_given_secret_key_writes_no_key_file(load_settings, tmp_path):
    assert load_settings(SECRET_KEY="k" * 60).SECRET_KEY == "k" * 60
    assert not (tmp_path / "var" / "secret_key").exists()


def test_production_without_a_secret_key_stops_with_a_clear_message(tmp_path):
    result = run_check(tmp_path, LOOKOUT_PRODUCTION="true")

    assert result.returncode != 0
    assert "SECRET_KEY (or SECRET_KEY_FILE) must be set when LOOKOUT_PRODUCTION is true" in (
        last_line(result.stderr)
    )
    assert not (tmp_path / "var" / "secret_key").exists()


def test_the_csp_is_enforced_unless_report_only_is_asked_for(load_settings):
    enforced = load_settings()
    report_only = load_settings(
        LOOKOUT_CSP_REPORT_ONLY="true", LOOKOUT_CSP_REPORT_URI="https://csp.example.org/r"
    )

    assert enforced.CONTENT_SECURITY_POLICY["DIRECTIVES"]["script-src"] == ["'self'"]
    assert not hasattr(enforced, "CONTENT_SECURITY_POLICY_REPORT_ONLY")
    assert not hasattr(report_only, "CONTENT_SECURITY_POLICY")
    directives = report_only.CONTENT_SECURITY_POLICY_REPORT_ONLY["DIRECTIVES"]
    assert directives["report-uri"] == ["https://csp.example.org/r"]


def test_hsts_preload_is_off_unless_asked_for(load_settings):
    production = {"LOOKOUT_PRODUCTION": "true", "SECRET_KEY": "k" * 60}

    assert load_settings(**production).SECURE_HSTS_PRELOAD is False
    assert load_settings(**production, SECURE_HSTS_PRELOAD="true").SECURE_HSTS_PRELOAD is True


def test_production_turns_on_https_only_cookies_hsts_and_hashed_static_files(load_settings):
    settings = load_settings(LOOKOUT_PRODUCTION="true", SECRET_KEY="k" * 60)
    assert settings.SESSION_COOKIE_SECURE and settings.CSRF_COOKIE_SECURE
    assert settings.SECURE_SSL_REDIRECT is True
    assert settings.SECURE_HSTS_SECONDS >= 31536000
    assert settings.STORAGES["staticfiles"]["BACKEND"].startswith("whitenoise.")
    assert settings.WHITENOISE_USE_FINDERS is False


def test_blank_values_keep_the_defaults(load_settings):
    # A copied .env.example is full of blanks: none may switch a protection off.
    blank = {name: "" for name in settings_variables()}
    settings = load_settings(**{**blank, "LOOKOUT_PRODUCTION": "true", "SECRET_KEY": "k" * 60})
    assert settings.SECURE_SSL_REDIRECT is True
    assert settings.SECURE_HSTS_SECONDS == 31536000
    assert settings.DEBUG is False
    assert settings.ALLOWED_HOSTS == ["127.0.0.1", "localhost", "[::1]"]
    assert settings.DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3"
    assert settings.LOOKOUT_PIPELINES[0]["slug"] == "default"
    assert settings.LOG_LEVEL == "INFO"


def test_poll_intervals_drive_the_beat_schedule(load_settings):
    settings = load_settings(
        LOOKOUT_WORKFLOW_POLL_INTERVAL="7",
        LOOKOUT_JOBS_POLL_INTERVAL="11",
        LOOKOUT_STORAGE_POLL_INTERVAL="300",
    )
    schedule = settings.CELERY_BEAT_SCHEDULE
    for entry, seconds in [("poll-workflow", 7), ("refresh-jobs", 11), ("poll-storage", 300)]:
        assert schedule[entry]["schedule"] == timedelta(seconds=seconds)
        assert schedule[entry]["options"]["expires"] <= seconds


def test_timeouts_come_from_the_environment(load_settings):
    settings = load_settings(LOOKOUT_HTTP_CONNECT_TIMEOUT="1.5", LOOKOUT_HTTP_READ_TIMEOUT="30")
    assert settings.LOOKOUT_HTTP_TIMEOUT == (1.5, 30.0)


def test_hosts_and_trusted_origins_are_comma_separated(load_settings):
    settings = load_settings(
        ALLOWED_HOSTS="lookout.example.org,wall.example.org",
        CSRF_TRUSTED_ORIGINS="https://lookout.example.org",
    )
    assert settings.ALLOWED_HOSTS == ["lookout.example.org", "wall.example.org"]
    assert settings.CSRF_TRUSTED_ORIGINS == ["https://lookout.example.org"]


# --- Bad values caught at load time -------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("LOOKOUT_STORAGE_URL", "http://"),
        ("LOOKOUT_STORAGE_POLL_INTERVAL", "1"),
        ("LOOKOUT_HTTP_READ_TIMEOUT", "0"),
        ("LOOKOUT_BACKFILL_PER_CYCLE", "-1"),
        ("DATABASE_URL", "nosuchdb://x"),
        ("LOG_LEVEL", "chatty"),
        ("SECRET_KEY_FILE", "/nonexistent/lookout-secret"),
    ],
)
def test_a_bad_value_stops_loading_and_names_the_variable(load_settings, variable, value):
    with pytest.raises(ImproperlyConfigured, match=variable):
        load_settings(**{variable: value})


def test_a_bad_first_pipeline_slug_stops_loading(load_settings):
    with pytest.raises(ImproperlyConfigured, match=r"LOOKOUT_WORKFLOW_\*: slug 'Not A Slug'"):
        load_settings(LOOKOUT_WORKFLOW_SLUG="Not A Slug")


@pytest.mark.parametrize(
    "content",
    [
        json.dumps({"slug": "east"}),
        json.dumps(["east"]),
        json.dumps([{"slug": "east", "url": "ftp://east.example.org"}]),
        json.dumps([{"slug": "default", "url": "https://east.example.org"}]),
        json.dumps([{"slug": "east", "url": "https://e.example.org", "key_file": "/nonexistent"}]),
    ],
    ids=["not-a-list", "not-an-object", "bad-url", "duplicate-slug", "missing-key-file"],
)
def test_a_bad_pipelines_file_stops_loading(load_settings, tmp_path, content):
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(content)
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_PIPELINES_FILE|pipeline slugs"):
        load_settings(LOOKOUT_PIPELINES_FILE=str(pipelines_file))


# --- Bad values stop manage.py check ---------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "env"),
    [
        ("DEBUG", {"DEBUG": "maybe"}),
        ("LOOKOUT_WORKFLOW_URL", {"LOOKOUT_WORKFLOW_URL": "ftp://x"}),
        ("LOOKOUT_WORKFLOW_POLL_INTERVAL", {"LOOKOUT_WORKFLOW_POLL_INTERVAL": "soon"}),
        ("REDIS_URL", {"REDIS_URL": "http://x"}),
        ("SECRET_KEY", {"LOOKOUT_PRODUCTION": "true"}),
    ],
)
def test_manage_py_check_fails_on_a_bad_value_and_names_the_variable(tmp_path, variable, env):
    result = run_check(tmp_path, **env)
    assert result.returncode != 0
    assert "ImproperlyConfigured" in last_line(result.stderr)
    assert variable in last_line(result.stderr)


def test_manage_py_check_fails_on_a_malformed_pipelines_file(tmp_path):
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text('[{"slug": "east",')
    result = run_check(tmp_path, LOOKOUT_PIPELINES_FILE=str(pipelines_file))
    assert result.returncode != 0
    assert "LOOKOUT_PIPELINES_FILE" in last_line(result.stderr)


def test_a_pipeline_time_zone_is_read_and_a_wrong_one_stops_start_up(load_settings, tmp_path):
    settings = load_settings(LOOKOUT_WORKFLOW_TIME_ZONE="America/Los_Angeles")
    assert settings.LOOKOUT_PIPELINES[0]["time_zone"] == "America/Los_Angeles"

    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(
        json.dumps([{"slug": "east", "url": "https://east.example.org", "time_zone": "Mars/Base"}])
    )
    result = run_check(tmp_path, LOOKOUT_PIPELINES_FILE=str(pipelines_file))
    assert result.returncode != 0
    assert "time_zone 'Mars/Base' is not a known time zone" in last_line(result.stderr)


def test_a_pipeline_ui_url_defaults_to_its_url_and_a_wrong_one_stops_start_up(
    load_settings, tmp_path
):
    settings = load_settings(LOOKOUT_WORKFLOW_URL="https://api.example.org")
    assert settings.LOOKOUT_PIPELINES[0]["ui_url"] == "https://api.example.org"
    settings = load_settings(LOOKOUT_WORKFLOW_UI_URL="https://dashboard.example.org/")
    assert settings.LOOKOUT_PIPELINES[0]["ui_url"] == "https://dashboard.example.org"

    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(
        json.dumps([{"slug": "east", "url": "https://east.example.org", "ui_url": "ftp://x"}])
    )
    result = run_check(tmp_path, LOOKOUT_PIPELINES_FILE=str(pipelines_file))
    assert result.returncode != 0
    assert "ui_url must be an http:// or https:// URL" in last_line(result.stderr)


def test_manage_py_check_refuses_a_key_in_clear_without_echoing_it(tmp_path):
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(
        json.dumps(
            [{"slug": "east", "url": "https://east.example.org", "key": "clear-text-key-123"}]
        )
    )
    result = run_check(tmp_path, LOOKOUT_PIPELINES_FILE=str(pipelines_file))
    assert result.returncode != 0
    assert "LOOKOUT_PIPELINES_FILE" in last_line(result.stderr)
    assert "key_env or key_file" in last_line(result.stderr)
    assert "clear-text-key-123" not in result.stderr + result.stdout


def test_manage_py_check_passes_with_redis_and_a_pipelines_file(tmp_path):
    pipelines_file = tmp_path / "pipelines.json"
    pipelines_file.write_text(
        json.dumps(
            [{"slug": "east", "url": "https://east.example.org", "key_env": "EAST_WORKFLOW_KEY"}]
        )
    )
    result = run_check(
        tmp_path,
        REDIS_URL="redis://127.0.0.1:6379/0",
        LOOKOUT_PIPELINES_FILE=str(pipelines_file),
        EAST_WORKFLOW_KEY="east-secret",
    )
    assert result.returncode == 0, result.stderr
    assert "no issues" in result.stdout


# --- .env.example ----------------------------------------------------------------


def test_the_settings_read_the_variables_this_module_looks_for():
    # Guards the discovery below: if the pattern stopped matching, coverage would pass empty.
    found = settings_variables()
    assert found["SECRET_KEY"] == "secret"
    assert found["LOOKOUT_WORKFLOW_URL"] == "url"
    assert len(found) > 20


def test_env_example_lists_every_variable_the_settings_read():
    missing = set(settings_variables()) - set(env_example())
    assert not missing


def documented_variables() -> set[str]:
    """Every variable named in the first cell of a table row of a page under docs/."""
    named = set()
    for page in (ROOT / "docs").rglob("*.md"):
        for line in page.read_text(encoding="utf-8").splitlines():
            if line.startswith("| `"):
                named.update(re.findall(r"`([A-Z0-9_]+)`", line.split("|")[1]))
    return named


def test_the_docs_give_every_variable_the_settings_read_a_table_row():
    undocumented = set(settings_variables()) - documented_variables()
    assert not undocumented


def test_the_settings_page_gives_each_variable_one_row():
    rows = [
        name
        for line in (ROOT / "docs" / "settings.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("| `")
        for name in re.findall(r"`([A-Z0-9_]+)`", line.split("|")[1])
    ]
    assert "LOOKOUT_WORKFLOW_UI_URL" in rows
    assert sorted({name for name in rows if rows.count(name) > 1}) == []


def test_env_example_explains_every_variable_in_a_comment_line_above_it():
    lines = (ROOT / ".env.example").read_text().splitlines()
    for number, line in enumerate(lines):
        if line.strip() and not line.startswith("#"):
            assert lines[number - 1].startswith("# "), f"no comment above {line!r}"


def test_env_example_holds_no_secret():
    example = env_example()
    for name in ("SECRET_KEY", "LOOKOUT_WORKFLOW_KEY", "LOOKOUT_STORAGE_KEY", "POSTGRES_PASSWORD"):
        assert example[name] == "", name


def test_env_example_values_load_once_a_secret_key_is_given(load_settings):
    settings = load_settings(**{**env_example(), "SECRET_KEY": "k" * 60})
    assert settings.LOOKOUT_PRODUCTION is True
    assert [env_example()["ALLOWED_HOSTS"]] == settings.ALLOWED_HOSTS
    assert settings.LOOKOUT_PIPELINES[0]["url"] == env_example()["LOOKOUT_WORKFLOW_URL"]
