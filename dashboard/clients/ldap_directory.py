"""The LDAP directory's one question Lookout asks outside a login: does it answer?

Sign-in itself goes through django-auth-ldap (dashboard/backends.py); this client only
probes the directory for /healthz: connect, StartTLS when asked, bind as the bind DN.
"""

from __future__ import annotations

import contextlib
from typing import Any

import ldap  # type: ignore[import-untyped]  # python-ldap has no type hints

from dashboard.lib.directory_status import ldap_error_text


class DirectoryUnreachable(Exception):
    """The directory did not answer, or refused the bind DN; the message says which."""


def directory_probe(
    *, url: str, bind_dn: str, bind_password: str, start_tls: bool, options: dict[int, Any]
) -> None:
    connection = ldap.initialize(url)
    try:
        for option, value in options.items():
            connection.set_option(option, value)
        if start_tls:
            connection.start_tls_s()
        connection.simple_bind_s(bind_dn, bind_password)
    except ldap.LDAPError as exc:
        raise DirectoryUnreachable(ldap_error_text(exc)) from None
    finally:
        with contextlib.suppress(ldap.LDAPError):  # never bound, or already gone
            connection.unbind_s()
