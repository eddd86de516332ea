#!/usr/bin/env bash
# Makes sure the real parts the tests drive are installed: redis-server, the PostgreSQL
# server, Chromium, openssl (a self-signed certificate for an HTTPS test receiver) and
# OpenLDAP's slapd with its tools. The tests start their own private
# Redis, PostgreSQL and slapd (never the machine's own); Chromium comes from Debian's
# package. Also the OpenLDAP and SASL headers python-ldap compiles against.
# `--build`: only those headers (the Makefile asks before installing the Python packages).
# The OpenID Connect provider the sign-in tests start (Node's oidc-provider) is
# installed from its lock file with npm. gettext (msgfmt) makes and checks the translation
# catalogs; `--gettext`: only it (as `make lint` and `make messages` run it).
set -euo pipefail

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
optional=()
[ "${1:-}" = "--build" ] || command -v msgfmt >/dev/null 2>&1 || missing+=(gettext)
if [ "${1:-}" = "--gettext" ]; then
  set -- --build  # nothing else: the Python packages are not built here either
  mode_gettext_only=1
fi
[ -n "${mode_gettext_only:-}" ] || [ -f /usr/include/ldap.h ] || missing+=(libldap2-dev)
[ -n "${mode_gettext_only:-}" ] || [ -f /usr/include/sasl/sasl.h ] || missing+=(libsasl2-dev)
if [ "${1:-}" != "--build" ]; then
  command -v redis-server >/dev/null 2>&1 || missing+=(redis-server)
  command -v openssl >/dev/null 2>&1 || missing+=(openssl)
  postgres_server_installed || missing+=(postgresql)
  if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    missing+=(chromium)
  fi
  # Optional: without them the LDAP tests skip, saying so in one line. Debian keeps
  # slapd in /usr/sbin, off a normal user's PATH.
  command -v slapd >/dev/null 2>&1 || [ -x /usr/sbin/slapd ] || optional+=(slapd)
  command -v ldapadd >/dev/null 2>&1 || optional+=(ldap-utils)
fi
if [ ${#optional[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 \
    && { apt-get update -qq || true; } \
    && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${optional[@]}" >/dev/null; then
    :
  else
    echo "Could not install ${optional[*]}: the LDAP sign-in tests will be skipped." >&2
  fi
fi
# The test OpenID Connect provider's packages, exactly as locked (tests skip without node).
oidc_provider_dir="$(dirname "$0")/../tests/support/oidc_provider"
if [ "${1:-}" = "--build" ]; then
  :
elif command -v node >/dev/null 2>&1 && command -v npm >/dev/null 2>&1; then
  if ! (cd "$oidc_provider_dir" && npm ci --no-audit --no-fund --ignore-scripts --silent); then
    echo "Could not install the test OpenID Connect provider (npm ci in tests/support/oidc_provider): its tests will fail" >&2
  fi
else
  echo "node and npm are not installed: the OpenID Connect sign-in tests will be skipped (apt-get install nodejs npm)" >&2
fi

[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  # Debian's postgresql package also sets up (and may start) a cluster of its own on
  # port 5432, and slapd a directory of its own; the tests leave both alone.
  echo "Installing test prerequisites from Debian packages: ${missing[*]}"
  apt-get update -qq
  if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null; then
    echo "Could not install the test prerequisites: ${missing[*]}" >&2
    exit 1
  fi
else
  if [ "${1:-}" = "--build" ]; then
    echo "python-ldap (LDAP sign-in) compiles against these Debian packages: ${missing[*]}" >&2
  else
    echo "The tests need these Debian packages: ${missing[*]}" >&2
  fi
  echo "Install them with: sudo apt-get install ${missing[*]}" >&2
  exit 1
fi
