#!/usr/bin/env bash
# Makes sure the real parts the tests drive are installed: redis-server, the PostgreSQL
# server, Chromium, and gettext (msgfmt, for the translation catalogs). The tests start
# their own private Redis and PostgreSQL (never the machine's own); Chromium comes from
# Debian's package. With package names as arguments (`test-prerequisites.sh gettext`,
# as `make lint` and `make messages` run it), only those are checked.
set -euo pipefail

only=("$@")
want() {
  [ ${#only[@]} -eq 0 ] && return 0
  local name
  for name in "${only[@]}"; do [ "$name" = "$1" ] && return 0; done
  return 1
}

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
if want redis-server; then
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
fi
if want postgresql; then
  postgres_server_installed || missing+=(postgresql)
fi
if want chromium && ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
  missing+=(chromium)
fi
if want gettext; then
  command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
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
