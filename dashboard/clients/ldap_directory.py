"""What Lookout asks the LDAP directory outside a sign-in: does it answer, and which of
these accounts does it still have?

Sign-in itself goes through django-auth-ldap (dashboard/backends.py). This client binds
as the bind DN (StartTLS when asked) to probe the directory for /healthz, and to look
for the LDAP accounts the periodic check goes through.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import ldap  # type: ignore[import-untyped]  # python-ldap has no type hints
from ldap.filter import escape_filter_chars  # type: ignore[import-untyped]

from dashboard.lib.directory_status import ldap_error_text


class DirectoryUnreachable(Exception):
    """The directory did not answer, or refused the bind DN; the message says which."""


@dataclass(frozen=True)
class DirectoryServer:
    url: str
    bind_dn: str
    bind_password: str = field(repr=False)
    start_tls: bool
    options: dict[int, Any]


@contextlib.contextmanager
def _bound(server: DirectoryServer) -> Iterator[Any]:
    """A connection bound as the bind DN; any LDAP error is DirectoryUnreachable."""
    connection = ldap.initialize(server.url)
    try:
        for option, value in server.options.items():
            connection.set_option(option, value)
        if server.start_tls:
            connection.start_tls_s()
        connection.simple_bind_s(server.bind_dn, server.bind_password)
        yield connection
    except ldap.LDAPError as exc:
        raise DirectoryUnreachable(ldap_error_text(exc)) from None
    finally:
        with contextlib.suppress(ldap.LDAPError):  # never bound, or already gone
            connection.unbind_s()


def directory_probe(server: DirectoryServer) -> None:
    with _bound(server):
        pass


def directory_users_present(
    server: DirectoryServer, *, base_dn: str, filterstr: str, usernames: list[str]
) -> set[str]:
    """Which of `usernames` the user search (`filterstr` with `%(user)s`) still finds."""
    present = set()
    with _bound(server) as connection:
        for username in usernames:
            found = connection.search_s(
                base_dn,
                ldap.SCOPE_SUBTREE,
                filterstr % {"user": escape_filter_chars(username)},
                ["1.1"],  # no attributes: only whether there is an entry
            )
            # Referrals come back as entries without a DN; they are not the user.
            if any(dn for dn, _ in found):
                present.add(username)
    return present
