#!/usr/bin/env bash
# Makes sure the real parts the tests drive are installed: redis-server, the PostgreSQL
# server and Chromium. The tests start their own private Redis and PostgreSQL (never the
# machine's own); Chromium comes from Debian's package. The OpenID Connect provider the
# sign-in tests start (Node's oidc-provider) is installed from its lock file with npm.
set -euo pipefail

# The test OpenID Connect provider's packages, exactly as locked (tests skip without node).
oidc_provider_dir="$(dirname "$0")/../tests/support/oidc_provider"
if command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  if ! (cd "$oidc_provider_dir" && npm ci --no-audit --no-fund --ignore-scripts --silent); then
    echo "Could not install the test OpenID Connect provider (npm ci in tests/support/oidc_provider): its tests will fail" >&2
  fi
else
  echo "node and npm are not installed: the OpenID Connect sign-in tests will be skipped (apt-get install nodejs npm)" >&2
fi

# initdb, pg_ctl and postgres: on PATH, or where Debian keeps them (off PATH).
postgres_server_installed() {
  if command -v initdb >/dev/null 2>&1 && command -v pg_ctl >/dev/null 2>&1 \
    && command -v postgres >/dev/null 2>&1; then
    return 0
  fi
  local bin
  for bin in /usr/lib/postgresql/*/bin; do
    if [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] && [ -x "$bin/postgres" ]; then
      return 0
    fi
  done
  return 1
}

missing=()
command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
postgres_server_installed || missing+=(postgresql)
if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  # Debian's postgresql package also sets up (and may start) a cluster of its own on
  # port 5432; the tests leave it alone.
  echo "Installing test prerequisites from Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "The tests need these Debian packages: ${missing[*]}" >&2
  echo "Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
