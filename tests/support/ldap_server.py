"""A private, throw-away OpenLDAP (Debian's slapd) with a small test directory.

`ldap_server()` writes a slapd.conf (mdb backend) into a temporary folder, starts slapd
on a free loopback port, loads the directory below with `ldapadd`, and stops slapd and
removes the folder however the tests end. `LdapServer.modify` runs `ldapmodify` (to move
someone between groups), `stop`/`start` take the directory away and bring it back.

The directory, under dc=example,dc=org:
- ou=people: olga (operators), vic (viewers), ada (admins), nico (only in a group that
  maps to no role), pat (in every group); every password is PASSWORD;
- ou=groups: groupOfNames viewers, operators, admins, cafeteria;
- cn=lookout,ou=services: the account Lookout binds as to search.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.support.redis_server import free_port

BASE_DN = "dc=example,dc=org"
ROOT_DN = f"cn=admin,{BASE_DN}"
ROOT_PASSWORD = "root secret"  # noqa: S105  # a throw-away test directory
BIND_DN = f"cn=lookout,ou=services,{BASE_DN}"
BIND_PASSWORD = "lookout bind secret"  # noqa: S105
PASSWORD = "directory password 1"  # noqa: S105
PEOPLE = f"ou=people,{BASE_DN}"
GROUPS = f"ou=groups,{BASE_DN}"
# A groupOfNames needs a member: pat keeps each one non-empty when a test takes someone out.
MEMBERS = {
    "viewers": ["vic", "pat"],
    "operators": ["olga", "pat"],
    "admins": ["ada", "pat"],
    "cafeteria": ["nico", "olga"],
}
SCHEMAS = ("core", "cosine", "inetorgperson", "nis")
# Debian keeps slapd in /usr/sbin (off a normal user's PATH) and its modules here.
SLAPD_PLACES = ("/usr/sbin/slapd",)
MODULE_DIR = "/usr/lib/ldap"
SCHEMA_DIR = "/etc/ldap/schema"


def group_dn(name: str) -> str:
    return f"cn={name},{GROUPS}"


def person_dn(uid: str) -> str:
    return f"uid={uid},{PEOPLE}"


def _slapd() -> str | None:
    found = shutil.which("slapd")
    if found:
        return found
    return next((place for place in SLAPD_PLACES if Path(place).exists()), None)


def missing() -> str | None:
    """One line naming what the LDAP tests need and cannot find; None when all is there."""
    absent = []
    if _slapd() is None:
        absent.append("slapd")
    if shutil.which("ldapadd") is None or shutil.which("ldapmodify") is None:
        absent.append("ldap-utils")
    if _slapd() is not None and not Path(SCHEMA_DIR, "inetorgperson.schema").exists():
        absent.append(f"slapd's schemas in {SCHEMA_DIR}")
    if not absent:
        return None
    return (
        f"LDAP tests skipped: {', '.join(absent)} not installed "
        "(`make test` installs them; or `apt-get install slapd ldap-utils`)"
    )


def _certificate(workdir: Path) -> Path | None:
    """A self-signed certificate for 127.0.0.1 (its own CA), for StartTLS; None without
    openssl (the StartTLS test then skips)."""
    openssl = shutil.which("openssl")
    if openssl is None:
        return None
    cert = workdir / "cert.pem"
    subprocess.run(
        [
            openssl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(workdir / "key.pem"), "-out", str(cert),
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=60,
    )  # fmt: skip
    return cert


def _config(workdir: Path, cert: Path | None) -> str:
    includes = "\n".join(f"include {SCHEMA_DIR}/{name}.schema" for name in SCHEMAS)
    module = f"modulepath {MODULE_DIR}\nmoduleload back_mdb" if Path(MODULE_DIR).is_dir() else ""
    tls = f"TLSCertificateFile {cert}\nTLSCertificateKeyFile {workdir}/key.pem" if cert else ""
    return f"""{includes}
pidfile {workdir}/slapd.pid
argsfile {workdir}/slapd.args
{module}
{tls}
database mdb
maxsize 10485760
suffix "{BASE_DN}"
rootdn "{ROOT_DN}"
rootpw "{ROOT_PASSWORD}"
directory {workdir}/data
access to attrs=userPassword by self write by anonymous auth by * none
access to * by * read
"""


def _directory_ldif() -> str:
    entries = [
        f"dn: {BASE_DN}\nobjectClass: dcObject\nobjectClass: organization\no: Example\ndc: example",
        f"dn: {PEOPLE}\nobjectClass: organizationalUnit\nou: people",
        f"dn: {GROUPS}\nobjectClass: organizationalUnit\nou: groups",
        f"dn: ou=services,{BASE_DN}\nobjectClass: organizationalUnit\nou: services",
        f"dn: {BIND_DN}\nobjectClass: organizationalRole\nobjectClass: simpleSecurityObject\n"
        f"cn: lookout\nuserPassword: {BIND_PASSWORD}",
    ]
    names = {
        "olga": "Olga Operator",
        "vic": "Vic Viewer",
        "ada": "Ada Admin",
        "nico": "Nico None",
        "pat": "Pat Placeholder",
    }
    for uid, full_name in names.items():
        given, family = full_name.split()
        entries.append(
            f"dn: {person_dn(uid)}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {full_name}\n"
            f"givenName: {given}\nsn: {family}\nmail: {uid}@example.org\nuserPassword: {PASSWORD}"
        )
    for group, members in MEMBERS.items():
        lines = "\n".join(f"member: {person_dn(uid)}" for uid in members)
        entries.append(f"dn: {group_dn(group)}\nobjectClass: groupOfNames\ncn: {group}\n{lines}")
    return "\n\n".join(entries) + "\n"


class LdapServer:
    def __init__(self, slapd: str, workdir: Path, ca_file: Path | None) -> None:
        self.slapd = slapd
        self.workdir = workdir
        # The certificate StartTLS presents, which is also its own CA (None: no TLS).
        self.ca_file = ca_file
        self.port = free_port()
        self.url = f"ldap://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            # -d 0: stay in the foreground (so this process owns it) and log nothing.
            [self.slapd, "-f", str(self.workdir / "slapd.conf"), "-h", f"{self.url}/", "-d", "0"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 15
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                pass
            if self.process.poll() is not None or time.monotonic() > deadline:
                error = self.process.stderr.read() if self.process.stderr else b""
                self.stop()
                raise RuntimeError(f"slapd did not start: {error.decode(errors='replace')}")
            time.sleep(0.05)

    def stop(self) -> None:
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def _tool(self, tool: str, ldif: str) -> None:
        result = subprocess.run(
            [tool, "-x", "-H", self.url, "-D", ROOT_DN, "-w", ROOT_PASSWORD],
            input=ldif.encode(),
            capture_output=True,
            timeout=30,
        )
        if result.returncode != 0:
            raise RuntimeError(f"{tool} failed: {result.stderr.decode(errors='replace')}")

    def add(self, ldif: str) -> None:
        self._tool("ldapadd", ldif)

    def modify(self, ldif: str) -> None:
        self._tool("ldapmodify", ldif)

    def member_remove(self, group: str, uid: str) -> None:
        self.modify(
            f"dn: {group_dn(group)}\nchangetype: modify\ndelete: member\nmember: {person_dn(uid)}\n"
        )

    def person_add(self, uid: str, *, groups: list[str]) -> None:
        self.add(
            f"dn: {person_dn(uid)}\nobjectClass: inetOrgPerson\nuid: {uid}\ncn: {uid}\n"
            f"sn: {uid}\nuserPassword: {PASSWORD}\n"
        )
        for group in groups:
            self.member_add(group, uid)

    def person_delete(self, uid: str, *, groups: list[str]) -> None:
        for group in groups:
            self.member_remove(group, uid)
        self.modify(f"dn: {person_dn(uid)}\nchangetype: delete\n")

    def member_add(self, group: str, uid: str) -> None:
        self.modify(
            f"dn: {group_dn(group)}\nchangetype: modify\nadd: member\nmember: {person_dn(uid)}\n"
        )


@contextmanager
def ldap_server() -> Iterator[LdapServer]:
    slapd = _slapd()
    if slapd is None:
        raise RuntimeError(missing() or "slapd is not installed")
    workdir = Path(tempfile.mkdtemp(prefix="lookout-slapd-"))
    (workdir / "data").mkdir()
    cert = _certificate(workdir)
    (workdir / "slapd.conf").write_text(_config(workdir, cert))
    server = LdapServer(slapd, workdir, cert)
    try:
        server.start()
        server.add(_directory_ldif())
        yield server
    finally:
        server.stop()
        shutil.rmtree(workdir, ignore_errors=True)


def lookout_configure(server: LdapServer, settings: Any, monkeypatch: Any) -> None:
    """Point Lookout at `server` the way config/settings.py does it from LOOKOUT_LDAP_*
    (pytest-django's `settings` and pytest's `monkeypatch`)."""
    from config.ldap import ldap_settings

    for name, value in {
        "LOOKOUT_LDAP_URL": server.url,
        "LOOKOUT_LDAP_BIND_DN": BIND_DN,
        "LOOKOUT_LDAP_BIND_PASSWORD": BIND_PASSWORD,
        "LOOKOUT_LDAP_USER_SEARCH": f"{PEOPLE}|(uid=%(user)s)",
        "LOOKOUT_LDAP_GROUP_SEARCH": GROUPS,
        "LOOKOUT_LDAP_TIMEOUT": "2",
    }.items():
        monkeypatch.setenv(name, value)
    for name, value in ldap_settings().items():
        setattr(settings, name, value)
    settings.LOOKOUT_LDAP_ENABLED = True
    settings.AUTHENTICATION_BACKENDS = [
        "axes.backends.AxesStandaloneBackend",
        "dashboard.backends.LDAPDirectoryBackend",
        "dashboard.backends.LocalLoginGate",
        "django.contrib.auth.backends.ModelBackend",
    ]
    settings.LOOKOUT_ROLE_MAP = {
        group_dn("viewers"): "viewer",
        # Spelled differently from the directory: DNs are compared case-insensitively.
        "CN=Operators, OU=Groups, DC=Example, DC=Org": "operator",
        group_dn("admins"): "admin",
    }


@pytest.fixture(scope="module")
def directory() -> Iterator[LdapServer]:
    """A test module's directory (`directory = ldap_server.directory` in the module);
    the module's tests skip, saying what is missing, where slapd is not installed."""
    why = missing()
    if why:
        pytest.skip(why)
    with ldap_server() as server:
        yield server
