"""Lookout settings: one module, every deploy-specific value from the environment.

With no environment at all Lookout runs on an embedded default: SQLite for the
database, a database-backed cache and a filesystem Celery broker (both work across
processes without Redis), pointed at the simulator on 127.0.0.1:8001/8002.
Setting REDIS_URL switches the cache and the Celery broker to Redis.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from whitenoise.compress import Compressor  # type: ignore[import-untyped]  # no type hints

from config.env import (
    env_bool,
    env_float,
    env_int,
    env_list,
    env_secret,
    env_str,
    env_url,
    url_origin,
)
from config.ldap import ldap_settings
from config.pipelines import load_pipelines
from config.redis_urls import BROKER, CACHE, RESULTS, redis_database_url
from config.role_map import load_role_map
from config.secret_key import generated_secret_key

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = Path(env_str("LOOKOUT_VAR_DIR", str(BASE_DIR / "var")))
# The embedded default keeps its SQLite file, beat schedule and file broker here.
VAR_DIR.mkdir(parents=True, exist_ok=True)

DEBUG = env_bool("DEBUG", False)
# Production turns on HTTPS-only cookies, HSTS and hashed static files, and refuses to
# start without a real SECRET_KEY.
LOOKOUT_PRODUCTION = env_bool("LOOKOUT_PRODUCTION", False)
SECRET_KEY = env_secret("SECRET_KEY", "")
if not SECRET_KEY:
    if LOOKOUT_PRODUCTION:
        raise ImproperlyConfigured(
            "SECRET_KEY (or SECRET_KEY_FILE) must be set when LOOKOUT_PRODUCTION is true: "
            "web, worker and beat must share one key that outlives the container. Make one "
            'with: python -c "import secrets; print(secrets.token_urlsafe(50))"'
        )
    # Made on first start, mode 0600, reused after: no two installs share a key.
    SECRET_KEY = generated_secret_key(VAR_DIR)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["127.0.0.1", "localhost", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    # Swagger UI and Redoc as static files, so the API pages fetch nothing from elsewhere.
    "drf_spectacular_sidecar",
    "django_htmx",
    "csp",
    "template_partials",
    "axes",
    "dashboard",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "csp.middleware.CSPMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The language: the picker's cookie, else the browser's Accept-Language, else English.
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    # Each user's permissions from the cache between changes (dashboard/lib/auth_cache.py).
    "dashboard.lib.auth_cache.PermissionCacheMiddleware",
    "dashboard.middleware.SessionTimeoutMiddleware",
    # A signed-in user's saved language wins over the cookie and the browser.
    "dashboard.middleware.UserLanguageMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    # Last, as django-axes asks: it turns a locked-out login into the lockout page.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------
_default_db = f"sqlite:///{VAR_DIR / 'lookout.sqlite3'}"
try:
    DATABASES = {
        "default": dj_database_url.parse(env_str("DATABASE_URL", _default_db), conn_max_age=60)
    }
except ValueError as exc:  # dj-database-url's own message does not say which variable
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from None
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Web, worker and beat share one file: WAL and a busy timeout keep them from tripping.
    DATABASES["default"]["CONN_MAX_AGE"] = 0
    DATABASES["default"]["OPTIONS"] = {
        "timeout": 20,
        "transaction_mode": "IMMEDIATE",
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and Celery broker ----------------------------------------------
REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL and not REDIS_URL.startswith(("redis://", "rediss://", "unix://")):
    raise ImproperlyConfigured(f"REDIS_URL must be a redis:// URL, not {REDIS_URL!r}")
CACHE_KEY_PREFIX = "dashboard"
# Cache, broker and results never share a Redis database (config/redis_urls.py): the
# cache on REDIS_URL's database n, the broker on n+1, results (none are kept today) on
# n+2. Where one database is all there is, key prefixes keep them apart instead.
LOOKOUT_REDIS_SEPARATE_DATABASES = env_bool("LOOKOUT_REDIS_SEPARATE_DATABASES", True)
if REDIS_URL:
    if LOOKOUT_REDIS_SEPARATE_DATABASES:
        _redis_cache_url = redis_database_url(REDIS_URL, CACHE)
        CELERY_BROKER_URL = redis_database_url(REDIS_URL, BROKER)
        LOOKOUT_REDIS_RESULTS_URL = redis_database_url(REDIS_URL, RESULTS)
    else:
        _redis_cache_url = CELERY_BROKER_URL = LOOKOUT_REDIS_RESULTS_URL = REDIS_URL
        CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, object] = {"global_keyprefix": "lookout-broker:"}
        CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"global_keyprefix": "lookout-results:"}
    CACHES = {
        "default": {
            # Django's Redis cache, but an unreachable Redis reads as an empty cache
            # (config/cache.py): pages answer from the database through an outage.
            "BACKEND": "config.cache.ResilientRedisCache",
            "LOCATION": _redis_cache_url,
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "TIMEOUT": 7 * 24 * 3600,
            # A Redis that hangs instead of refusing must not hang the pages with it.
            "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 2},
        }
    }
else:
    CACHES = {
        "default": {
            "BACKEND": "django.core.cache.backends.db.DatabaseCache",
            "LOCATION": "lookout_cache",
            "KEY_PREFIX": CACHE_KEY_PREFIX,
            "TIMEOUT": 7 * 24 * 3600,
            "OPTIONS": {"MAX_ENTRIES": 200_000, "CULL_FREQUENCY": 10},
        }
    }
    # Kombu's filesystem transport, writing each message atomically and setting aside
    # one it cannot read (config/broker.py): a killed worker cannot wedge the queue.
    CELERY_BROKER_URL = "lookoutfs://"
    _broker_dir = VAR_DIR / "celery-broker"
    # Kombu's filesystem transport expects its folders to exist.
    for _folder in ("queue", "processed", "control"):
        (_broker_dir / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }

CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_ALWAYS_EAGER = env_bool("CELERY_TASK_ALWAYS_EAGER", False)
CELERY_BEAT_SCHEDULE_FILENAME = str(VAR_DIR / "celerybeat-schedule")

# --- Ports of `make run` (manage.py run_stack) ---------------------------------
# The web server's port, and the built-in simulator's two; the default upstream and
# public URLs follow them, so moving a port moves every address that uses it.
LOOKOUT_PORT = env_int("LOOKOUT_PORT", 8000, minimum=1)
LOOKOUT_SIMULATOR_WORKFLOW_PORT = env_int("LOOKOUT_SIMULATOR_WORKFLOW_PORT", 8001, minimum=1)
LOOKOUT_SIMULATOR_STORAGE_PORT = env_int("LOOKOUT_SIMULATOR_STORAGE_PORT", 8002, minimum=1)
# The demo's second pipeline (the pipelines file `make run` writes points at it).
LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT = env_int(
    "LOOKOUT_SIMULATOR_SECOND_WORKFLOW_PORT", 8003, minimum=1
)

# --- Upstream services ----------------------------------------------------
LOOKOUT_HTTP_TIMEOUT = (
    env_float("LOOKOUT_HTTP_CONNECT_TIMEOUT", 3.05, minimum=0.1),
    env_float("LOOKOUT_HTTP_READ_TIMEOUT", 10.0, minimum=0.1),
)
# A transfer approval's read timeout: the service waits up to 30 s for its job server
# before answering, so the usual 10 s would give up on approvals that succeed.
LOOKOUT_WORKFLOW_APPROVE_TIMEOUT = env_float("LOOKOUT_WORKFLOW_APPROVE_TIMEOUT", 45.0, minimum=0.1)
LOOKOUT_PIPELINES = load_pipelines(
    first={
        "slug": env_str("LOOKOUT_WORKFLOW_SLUG", "default"),
        "name": env_str("LOOKOUT_WORKFLOW_NAME", "Default pipeline"),
        "url": env_url(
            "LOOKOUT_WORKFLOW_URL", f"http://127.0.0.1:{LOOKOUT_SIMULATOR_WORKFLOW_PORT}"
        ),
        "user": env_str("LOOKOUT_WORKFLOW_USER", "demo"),
        "key": env_secret("LOOKOUT_WORKFLOW_KEY", "demo-key"),
        "time_zone": env_str("LOOKOUT_WORKFLOW_TIME_ZONE", "UTC"),
        "ui_url": env_str("LOOKOUT_WORKFLOW_UI_URL", ""),
        "processing_configs": env_str("LOOKOUT_WORKFLOW_PROCESSING_CONFIGS", ""),
        # The optional service account on the service's own dashboard (docs/service-account.md).
        "dashboard_user": env_str("LOOKOUT_WORKFLOW_DASHBOARD_USER", ""),
        "dashboard_password": env_secret("LOOKOUT_WORKFLOW_DASHBOARD_PASSWORD", ""),
    },
    extra_file=env_str("LOOKOUT_PIPELINES_FILE", ""),
)
LOOKOUT_STORAGE = {
    "url": env_url("LOOKOUT_STORAGE_URL", f"http://127.0.0.1:{LOOKOUT_SIMULATOR_STORAGE_PORT}"),
    "user": env_str("LOOKOUT_STORAGE_USER", "demo"),
    "key": env_secret("LOOKOUT_STORAGE_KEY", "demo-key"),
}

# Poll intervals (seconds). The beat schedule and /healthz both read these.
LOOKOUT_WORKFLOW_POLL_INTERVAL = env_int("LOOKOUT_WORKFLOW_POLL_INTERVAL", 10, minimum=1)
LOOKOUT_STORAGE_POLL_INTERVAL = env_int("LOOKOUT_STORAGE_POLL_INTERVAL", 60, minimum=5)
LOOKOUT_JOBS_POLL_INTERVAL = env_int("LOOKOUT_JOBS_POLL_INTERVAL", 15, minimum=1)
# With a dashboard account: the status lists are read at most this often (seconds), and
# never sooner than 10 x their last answer time (they cost the service CPU per unit x job),
# nor than 40 % of one dashboard tab's reads allows (docs/service-account.md).
LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL = env_int("LOOKOUT_DASHBOARD_LIST_MIN_INTERVAL", 30, minimum=1)
# The public completed lists, when the status lists already discover every unit.
LOOKOUT_DASHBOARD_COMPLETED_INTERVAL = env_int(
    "LOOKOUT_DASHBOARD_COMPLETED_INTERVAL", 300, minimum=1
)
# Seconds between two bytes of a dashboard answer; a multi-megabyte status list, or one
# the service holds ~30 s while its job server is down, needs more than the API's.
LOOKOUT_DASHBOARD_READ_TIMEOUT = env_float("LOOKOUT_DASHBOARD_READ_TIMEOUT", 40.0, minimum=1.0)
# The largest CSV the validation page accepts; a bigger request is refused before its body
# is read, and a file smaller than this is always held in memory (no temporary file).
LOOKOUT_CSV_MAX_BYTES = env_int("LOOKOUT_CSV_MAX_BYTES", 1024 * 1024, minimum=1024)
FILE_UPLOAD_MAX_MEMORY_SIZE = max(2_621_440, LOOKOUT_CSV_MAX_BYTES)
# How long a bulk hide can be undone before the workflow service is asked to hide the
# units (its hide cannot be undone).
LOOKOUT_HIDE_UNDO_SECONDS = env_int("LOOKOUT_HIDE_UNDO_SECONDS", 300, minimum=10)
LOOKOUT_POLL_CONCURRENCY = env_int("LOOKOUT_POLL_CONCURRENCY", 32, minimum=1)
# New completed units whose details are fetched per cycle, so a first poll of a big
# pipeline does not fire thousands of requests at once.
LOOKOUT_BACKFILL_PER_CYCLE = env_int("LOOKOUT_BACKFILL_PER_CYCLE", 200, minimum=0)
LOOKOUT_JOBS_PER_CYCLE = env_int("LOOKOUT_JOBS_PER_CYCLE", 50, minimum=0)
# The storage service sends naive timestamps in its own server time zone.
LOOKOUT_STORAGE_TIME_ZONE = env_str("LOOKOUT_STORAGE_TIME_ZONE", "UTC") or "UTC"
try:
    ZoneInfo(LOOKOUT_STORAGE_TIME_ZONE)
except (ValueError, ZoneInfoNotFoundError):
    raise ImproperlyConfigured(
        f"LOOKOUT_STORAGE_TIME_ZONE must be a time zone name, not {LOOKOUT_STORAGE_TIME_ZONE!r}"
    ) from None
# A full resync of the package mirror at most this often (seconds); cycles in between
# fetch only what changed. Each storage poll spends at most the budget (seconds).
LOOKOUT_STORAGE_FULL_SYNC_INTERVAL = env_int("LOOKOUT_STORAGE_FULL_SYNC_INTERVAL", 3600, minimum=60)
LOOKOUT_STORAGE_SYNC_BUDGET = env_int("LOOKOUT_STORAGE_SYNC_BUDGET", 30, minimum=1)

# Ingest runs: how long an item whose start answer was lost waits to be matched to its
# transfer by name before it is marked failed (never started twice), and how many times a
# start that did not reach the service is tried.
LOOKOUT_INGEST_LOST_START_SECONDS = env_int("LOOKOUT_INGEST_LOST_START_SECONDS", 3600, minimum=10)
LOOKOUT_INGEST_START_ATTEMPTS = env_int("LOOKOUT_INGEST_START_ATTEMPTS", 5, minimum=1)

CELERY_BEAT_SCHEDULE = {
    # Discovery + status refresh of every active unit, per pipeline.
    "poll-workflow": {
        "task": "dashboard.tasks.poll_workflow",
        "schedule": timedelta(seconds=LOOKOUT_WORKFLOW_POLL_INTERVAL),
        "options": {"expires": LOOKOUT_WORKFLOW_POLL_INTERVAL},
    },
    # Jobs and tasks of units whose microservice changed (drill-down pages).
    "refresh-jobs": {
        "task": "dashboard.tasks.refresh_jobs",
        "schedule": timedelta(seconds=LOOKOUT_JOBS_POLL_INTERVAL),
        "options": {"expires": LOOKOUT_JOBS_POLL_INTERVAL},
    },
    # Ingest runs: follow items, queue new ones, fill free slots (dashboard.services.ingest_cycle).
    "ingest-cycle": {
        "task": "dashboard.tasks.run_ingest_cycle",
        "schedule": timedelta(seconds=LOOKOUT_WORKFLOW_POLL_INTERVAL),
        "options": {"expires": LOOKOUT_WORKFLOW_POLL_INTERVAL},
    },
    # Pipelines, spaces, locations and package counts.
    "poll-storage": {
        "task": "dashboard.tasks.poll_storage",
        "schedule": timedelta(seconds=LOOKOUT_STORAGE_POLL_INTERVAL),
        "options": {"expires": LOOKOUT_STORAGE_POLL_INTERVAL},
    },
}

# --- Wall screen ----------------------------------------------------------
# The address people reach Lookout at: wall-screen links printed by `wall_link create`.
LOOKOUT_PUBLIC_URL = env_url("LOOKOUT_PUBLIC_URL", f"http://127.0.0.1:{LOOKOUT_PORT}")
LOOKOUT_WALL_REFRESH_SECONDS = env_float("LOOKOUT_WALL_REFRESH_SECONDS", 10.0, minimum=1)

# --- Alerts and metrics ----------------------------------------------------
# Alert e-mail (and password reset) go through Django's e-mail settings, SMTP. With no
# EMAIL_HOST, Lookout offers no password reset (its URLs answer 404 and the login page
# does not mention it), and an e-mail channel tries localhost and shows why it failed.
LOOKOUT_PASSWORD_RESET = bool(env_str("EMAIL_HOST", ""))
EMAIL_HOST = env_str("EMAIL_HOST", "") or "localhost"
EMAIL_PORT = env_int("EMAIL_PORT", 25, minimum=1)
EMAIL_HOST_USER = env_str("EMAIL_HOST_USER", "")
EMAIL_HOST_PASSWORD = env_secret("EMAIL_HOST_PASSWORD", "")
EMAIL_USE_TLS = env_bool("EMAIL_USE_TLS", False)
EMAIL_USE_SSL = env_bool("EMAIL_USE_SSL", False)
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true")
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "lookout@localhost")
# Seconds a webhook may take to connect and to answer.
LOOKOUT_WEBHOOK_TIMEOUT = env_float("LOOKOUT_WEBHOOK_TIMEOUT", 10.0, minimum=0.1)
# Seconds one run of the alert-sending task may take (its hard time limit). A message it
# claimed is left alone for twice that, so a claim runs out only when its sender is surely
# gone; it stops claiming new messages while one more send could still overrun the limit.
LOOKOUT_ALERT_DELIVERY_SECONDS = env_int("LOOKOUT_ALERT_DELIVERY_SECONDS", 60, minimum=2)
if max(2 * LOOKOUT_WEBHOOK_TIMEOUT, EMAIL_TIMEOUT) > LOOKOUT_ALERT_DELIVERY_SECONDS / 2:
    raise ImproperlyConfigured(
        "LOOKOUT_ALERT_DELIVERY_SECONDS must be at least twice the longest send: "
        "4 x LOOKOUT_WEBHOOK_TIMEOUT (connect and answer) and 2 x EMAIL_TIMEOUT"
    )
# Bearer token for /metrics (or LOOKOUT_METRICS_TOKEN_FILE); unset: /metrics answers 404.
LOOKOUT_METRICS_TOKEN = env_secret("LOOKOUT_METRICS_TOKEN", "")

# --- Auth, API ------------------------------------------------------------

# Login throttling (django-axes): after LOOKOUT_LOGIN_FAILURE_LIMIT failed logins for one
# user name, or from one address, that login is locked for LOOKOUT_LOGIN_LOCKOUT_MINUTES
# (a failure during the lock starts it again). The lock page says so (429), the lock is
# written to the audit log, and an admin lifts it by deleting the access attempt in
# /admin/axes/accessattempt/ (also audit-logged) or with `manage.py axes_reset_username`.
# Behind reverse proxies, LOOKOUT_TRUSTED_PROXY_COUNT says how many append to
# X-Forwarded-For (dashboard/lib/client_ip.py); 0 trusts no header.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    # Off (LOOKOUT_LOCAL_LOGIN=false): only superusers may still log in with a local
    # password, the break-glass admin; everyone else signs in through the directory.
    "dashboard.backends.LocalLoginGate",
    "django.contrib.auth.backends.ModelBackend",
    # Answers only the OpenID Connect callback, and only when LOOKOUT_OIDC_ISSUER is set.
    "dashboard.services.oidc.OidcBackend",
]
LOOKOUT_LOCAL_LOGIN = env_bool("LOOKOUT_LOCAL_LOGIN", True)
# LDAP (config/ldap.py): on when LOOKOUT_LDAP_URL is set. Its backend goes after axes', so
# a wrong directory password counts toward the login throttle like a local one.
globals().update(ldap_settings())
LOOKOUT_LDAP_ENABLED = bool(globals().get("AUTH_LDAP_SERVER_URI"))
# How often LDAP accounts are looked for in the directory; those gone lose their roles
# (dashboard/services/directory_accounts.py).
LOOKOUT_LDAP_CHECK_MINUTES = env_int("LOOKOUT_LDAP_CHECK_MINUTES", 60, minimum=1)
if LOOKOUT_LDAP_ENABLED:
    AUTHENTICATION_BACKENDS.insert(1, "dashboard.backends.LDAPDirectoryBackend")
    CELERY_BEAT_SCHEDULE["check-ldap-accounts"] = {
        "task": "dashboard.tasks.check_ldap_accounts",
        "schedule": timedelta(minutes=LOOKOUT_LDAP_CHECK_MINUTES),
        "options": {"expires": LOOKOUT_LDAP_CHECK_MINUTES * 60},
    }
# Directory group (an OpenID Connect claim value or an LDAP group DN) -> role; the roles
# are set again from it at every directory login (dashboard/services/directory_roles.py).
LOOKOUT_ROLE_MAP = load_role_map(env_str("LOOKOUT_ROLE_MAP", ""))
# Who a signed-in user without a role should ask, shown on the "no access" page.
LOOKOUT_ACCESS_CONTACT = env_str("LOOKOUT_ACCESS_CONTACT", "")
# No start-up banner: `make run` and management commands print only what matters.
AXES_VERBOSE = False
AXES_FAILURE_LIMIT = env_int("LOOKOUT_LOGIN_FAILURE_LIMIT", 5, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOOKOUT_LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # either one locks
AXES_RESET_ON_SUCCESS = True
AXES_LOCKOUT_CALLABLE = "dashboard.views.accounts.locked_out"
AXES_CLIENT_IP_CALLABLE = "dashboard.lib.client_ip.client_ip"
LOOKOUT_TRUSTED_PROXY_COUNT = env_int("LOOKOUT_TRUSTED_PROXY_COUNT", 0, minimum=0)

# Sign-in through an OpenID Connect provider (dashboard/services/oidc.py), on when
# LOOKOUT_OIDC_ISSUER is set: endpoints and keys come from the issuer's discovery
# document. The provider's LOOKOUT_OIDC_GROUPS_CLAIM maps to roles (LOOKOUT_ROLE_MAP).
LOOKOUT_OIDC_ISSUER = env_str("LOOKOUT_OIDC_ISSUER", "")
LOOKOUT_OIDC_CLIENT_ID = env_str("LOOKOUT_OIDC_CLIENT_ID", "")
LOOKOUT_OIDC_CLIENT_SECRET = env_secret("LOOKOUT_OIDC_CLIENT_SECRET", "")
LOOKOUT_OIDC_NAME = env_str("LOOKOUT_OIDC_NAME", "single sign-on")
LOOKOUT_OIDC_GROUPS_CLAIM = env_str("LOOKOUT_OIDC_GROUPS_CLAIM", "groups")
LOOKOUT_OIDC_SCOPES = env_str("LOOKOUT_OIDC_SCOPES", "openid email profile")
if LOOKOUT_OIDC_ISSUER:
    env_url("LOOKOUT_OIDC_ISSUER", "")  # refuses anything but an http(s) URL
    if LOOKOUT_PRODUCTION and not LOOKOUT_OIDC_ISSUER.startswith("https://"):
        raise ImproperlyConfigured("LOOKOUT_OIDC_ISSUER must be an https:// URL in production")
    if not (LOOKOUT_OIDC_CLIENT_ID and LOOKOUT_OIDC_CLIENT_SECRET):
        raise ImproperlyConfigured(
            "LOOKOUT_OIDC_ISSUER is set: LOOKOUT_OIDC_CLIENT_ID and LOOKOUT_OIDC_CLIENT_SECRET "
            "(or LOOKOUT_OIDC_CLIENT_SECRET_FILE) must be set too"
        )
    if "openid" not in LOOKOUT_OIDC_SCOPES.split():
        raise ImproperlyConfigured("LOOKOUT_OIDC_SCOPES must include openid")

LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "dashboard:home"
LOGOUT_REDIRECT_URL = "login"

REST_FRAMEWORK = {
    # Personal tokens (/account/tokens/, stored hashed) first: their `WWW-Authenticate:
    # Bearer` header makes an anonymous call a 401 (session authentication has no such
    # header, so DRF would answer 403). DRF's own authtoken kept tokens in clear text.
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "dashboard.api.authentication.ApiTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    # Logged in and in a Lookout group, as for the pages (IsAuthenticated let in
    # users without a role).
    "DEFAULT_PERMISSION_CLASSES": ["dashboard.api.permissions.HasRole"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_PAGINATION_CLASS": "dashboard.api.pagination.ApiPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Lookout API",
    "DESCRIPTION": "Read API over what Lookout has learnt from the workflow and storage services.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    # The schema is part of the API: the same people may read it.
    "SERVE_PERMISSIONS": ["dashboard.api.permissions.HasRole"],
    # One schema name for "where a time comes from", wherever a field carries it.
    "ENUM_NAME_OVERRIDES": {
        "TimesFromEnum": "dashboard.models.TimesFrom",
        "IngestItemStateEnum": "dashboard.models.IngestItem.State",
        "IngestRunStatusEnum": "dashboard.models.IngestRun.Status",
        # A processing configuration's state keeps the name it had before ingest items.
        "StateEnum": ["loading", "fetched", "missing", "error"],
    },
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

# --- i18n, static ---------------------------------------------------------
LANGUAGE_CODE = "en"
# The interface languages; upstream names (units, jobs, groups, locations) stay as given.
LANGUAGES = [
    ("en", "English"),
    ("fr", "French"),
    ("es", "Spanish"),
    ("pt-br", "Brazilian Portuguese"),
]
LOCALE_PATHS = [BASE_DIR / "locale"]
# The picker's choice, for a year; Lax so it follows a link into Lookout.
LANGUAGE_COOKIE_NAME = "lookout_language"
LANGUAGE_COOKIE_AGE = 365 * 24 * 3600
LANGUAGE_COOKIE_SAMESITE = "Lax"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Collected only for production (the Docker image); elsewhere WhiteNoise serves the sources.
STATIC_ROOT = VAR_DIR / "staticfiles" if LOOKOUT_PRODUCTION else None
STATICFILES_DIRS = [BASE_DIR / "static"]
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if LOOKOUT_PRODUCTION
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}

# --- Security: secure by default, relaxed only for plain-HTTP local use --------
# A login lasts LOOKOUT_SESSION_MAX_HOURS at most, and ends after
# LOOKOUT_SESSION_IDLE_MINUTES without a page load or form (dashboard/middleware.py).
# Sessions are written to the database and read through the cache (a flush loses none).
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
SESSION_COOKIE_AGE = env_int("LOOKOUT_SESSION_MAX_HOURS", 12, minimum=1) * 3600
LOOKOUT_SESSION_IDLE_MINUTES = env_int("LOOKOUT_SESSION_IDLE_MINUTES", 60, minimum=1)
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
CSRF_COOKIE_HTTPONLY = False  # htmx reads the token from the page, not the cookie
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
if LOOKOUT_PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    LANGUAGE_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = True
    # Preloading is a promise to browser makers that is slow to take back, so it is the
    # operator's choice. Off, Django's deploy check would say so (W021) on every run.
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
    if not SECURE_HSTS_PRELOAD:
        SILENCED_SYSTEM_CHECKS = ["security.W021"]

# Content-Security-Policy (django-csp). Everything from Lookout's own origin; no inline
# script or style and no eval anywhere: live regions poll with plain htmx triggers and
# static/dashboard/js/live.js pauses them while the page is hidden, and htmx runs with
# allowEval off. LOOKOUT_CSP_REPORT_ONLY=true sends the same policy as report-only (to
# try a change); LOOKOUT_CSP_REPORT_URI names where browsers report violations.
_CSP_DIRECTIVES: dict[str, list[str]] = {
    "default-src": ["'self'"],
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "object-src": ["'none'"],
    "base-uri": ["'self'"],
    "form-action": ["'self'"],
    "frame-ancestors": ["'none'"],
}
if LOOKOUT_OIDC_ISSUER:
    # Log-out is a form whose answer redirects to the provider's log-out page, and
    # browsers hold such a redirect to form-action too.
    _CSP_DIRECTIVES["form-action"].append(url_origin(LOOKOUT_OIDC_ISSUER))
LOOKOUT_CSP_REPORT_URI = env_str("LOOKOUT_CSP_REPORT_URI", "")
if LOOKOUT_CSP_REPORT_URI:
    _CSP_DIRECTIVES["report-uri"] = [LOOKOUT_CSP_REPORT_URI]
LOOKOUT_CSP_REPORT_ONLY = env_bool("LOOKOUT_CSP_REPORT_ONLY", False)
if LOOKOUT_CSP_REPORT_ONLY:
    CONTENT_SECURITY_POLICY_REPORT_ONLY = {"DIRECTIVES": _CSP_DIRECTIVES}
else:
    CONTENT_SECURITY_POLICY = {"DIRECTIVES": _CSP_DIRECTIVES}

LOG_LEVEL = env_str("LOG_LEVEL", "INFO").upper()
if LOG_LEVEL not in {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"}:
    raise ImproperlyConfigured(
        f"LOG_LEVEL must be DEBUG, INFO, WARNING, ERROR or CRITICAL, not {LOG_LEVEL!r}"
    )
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        # Redacts API keys and URL passwords, whatever code logged them.
        "plain": {
            "()": "dashboard.lib.secret_redaction.RedactingFormatter",
            "format": "%(asctime)s %(levelname)s %(name)s: %(message)s",
        }
    },
    # Wall-screen tokens out of every line that passes the handler, whoever logged it.
    "filters": {"wall_tokens": {"()": "dashboard.lib.log_filters.WallTokenFilter"}},
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "plain",
            "filters": ["wall_tokens"],
        },
        "discard": {"class": "logging.NullHandler"},
    },
    "root": {"handlers": ["console"], "level": LOG_LEVEL},
    "loggers": {
        "urllib3": {"level": "WARNING"},
        # runserver's request lines, through the same filtered handler (not Django's own).
        "django.server": {"handlers": ["console"], "level": "INFO", "propagate": False},
        # Apprise's lines can carry parts of an alert channel's URL (a token it found
        # malformed, a request address): never to a log. The client reads what it needs
        # from each call's result and redacts it (dashboard/clients/apprise_notify.py).
        "apprise": {"handlers": ["discard"], "level": "WARNING", "propagate": False},
    },
}

# Outside production, serve static files straight from the source folders (no collectstatic).
WHITENOISE_USE_FINDERS = not LOOKOUT_PRODUCTION
# Source maps (megabytes, for the API pages' bundles) are for developer tools only: not
# compressed, which keeps collectstatic in seconds rather than minutes.
WHITENOISE_SKIP_COMPRESS_EXTENSIONS = [*Compressor.SKIP_COMPRESS_EXTENSIONS, "map"]
