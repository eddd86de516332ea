"""Alert delivery through Apprise: one URL reaches Teams, Matrix, Mattermost, ntfy,
PagerDuty, Opsgenie and the rest of Apprise's services.

The URL carries the service's credentials, so it is a secret: what may be shown is
`AppriseTarget.masked` (Apprise's own privacy form, its query left off), and every error
text is redacted of each secret part of the URL before it leaves this module. Apprise's
own log lines can name those parts (a malformed token, a request URL at debug level):
its logger is kept off Lookout's handlers (see LOGGING), and only its warnings and
errors for one call, redacted, become the `AppriseError` message.

Apprise retries nothing here (each URL's `retry` defaults to 0): the outbox retries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from urllib.parse import unquote, urlsplit

import apprise
from apprise.manager_plugins import NotificationManager

from dashboard.clients.notify import NotifyError
from dashboard.lib.redaction import redact

ERROR_TEXT_LIMIT = 300
_URL_SEPARATORS = re.compile(r"[/:@?&=#,+ ]")


class AppriseError(NotifyError):
    """Apprise did not deliver the message; the text (redacted) says why."""


class AppriseUrlError(ValueError):
    """Not an Apprise URL Lookout can send to; the text says why, without the URL."""


class Severity(StrEnum):
    """How the receiving service marks the message (colour, icon, incident severity)."""

    INFO = "info"
    FAILURE = "failure"
    SUCCESS = "success"


@dataclass(frozen=True)
class AppriseTarget:
    service: str  # Apprise's name for the service, e.g. "Mattermost"
    masked: str  # the URL with every secret part hidden: safe to show and store


def _asset() -> apprise.AppriseAsset:
    # Memory only: Apprise would otherwise keep login state (Matrix) under a cache folder.
    return apprise.AppriseAsset(storage_mode="memory", secure_logging=True)


def _instantiate(url: str) -> apprise.NotifyBase:
    plugin = apprise.Apprise.instantiate(url.strip(), asset=_asset())
    if plugin is None:
        scheme = urlsplit(url.strip()).scheme.lower() if "://" in url else ""
        known = NotificationManager().schemas()  # type: ignore[no-untyped-call]
        if scheme in {"http", "https"}:
            raise AppriseUrlError(
                f"Apprise knows no service at this {scheme}:// address: write it as an "
                "Apprise URL (json://... posts JSON to any address), or add it as a webhook."
            )
        if not scheme or scheme not in known:
            shown = f"{scheme}://" if scheme else "this address"
            raise AppriseUrlError(f"Apprise has no service for {shown}.")
        raise AppriseUrlError(
            f"The {scheme}:// URL is incomplete or malformed (see Apprise's page for it)."
        )
    return plugin


def _privacy_url(plugin: apprise.NotifyBase) -> str:
    """Apprise's own masked form: each part it knows to be private shortened to "x...y"."""
    return str(plugin.url(privacy=True))  # type: ignore[no-untyped-call]


def _masked(plugin: apprise.NotifyBase) -> str:
    """The privacy form without its query, and with any user or token before "@" hidden
    too (Apprise shows a user name, and for ntfy a token sits there)."""
    parts = urlsplit(unquote(_privacy_url(plugin).split("?", 1)[0]))
    netloc = parts.netloc
    if "@" in netloc:
        netloc = "****@" + netloc.rsplit("@", 1)[1]
    return parts._replace(netloc=netloc).geturl()


def apprise_url_check(url: str) -> AppriseTarget:
    """What the URL is for and how to show it; raises `AppriseUrlError` if unusable."""
    plugin = _instantiate(url)
    return AppriseTarget(service=str(plugin.service_name), masked=_masked(plugin))


def secret_parts(url: str) -> list[str]:
    """The pieces of `url` that its masked form does not show, and the URL itself.

    Longest first, so a piece that contains another is hidden whole.
    """
    try:
        shown = set(_URL_SEPARATORS.split(unquote(_masked(_instantiate(url)))))
    except AppriseUrlError:
        shown = set()
    shown.add(urlsplit(url).scheme)
    pieces = {url, unquote(url)}
    for text in (url, unquote(url)):
        pieces.update(
            piece for piece in _URL_SEPARATORS.split(text) if len(piece) >= 4 and piece not in shown
        )
    return sorted(pieces, key=len, reverse=True)


def _notify_type(severity: Severity) -> apprise.NotifyType:
    return {
        Severity.INFO: apprise.NotifyType.INFO,
        Severity.FAILURE: apprise.NotifyType.FAILURE,
        Severity.SUCCESS: apprise.NotifyType.SUCCESS,
    }[severity]


def _body_format(plugin: apprise.NotifyBase) -> apprise.NotifyFormat:
    """Lookout's text reads as Markdown as it is (lines, "- " items, bare links): a
    Markdown service (Teams) gets it unchanged, not escaped; the others get it as text,
    which Apprise escapes for an HTML one."""
    if plugin.notify_format == apprise.NotifyFormat.MARKDOWN:
        return apprise.NotifyFormat.MARKDOWN
    return apprise.NotifyFormat.TEXT


def apprise_send(
    *,
    url: str,
    title: str,
    body: str,
    severity: Severity = Severity.INFO,
    timeout: float = 10.0,
) -> None:
    """Send one plain-text message; raises `AppriseError` unless Apprise says delivered.

    Each request Apprise makes waits `timeout` to connect and `timeout` for an answer,
    and the whole call (several requests for Matrix) gives up after twice `timeout`.
    """
    try:
        plugin = _instantiate(url)
    except AppriseUrlError as exc:
        raise AppriseError(str(exc)) from None
    plugin.socket_connect_timeout = timeout
    plugin.socket_read_timeout = timeout
    sender = apprise.Apprise(asset=_asset())
    sender.add(plugin)
    result = sender.notify(
        body=body,
        title=title,
        notify_type=_notify_type(severity),
        body_format=_body_format(plugin),
        timeout=2 * timeout,
    )
    if result:
        return
    said = [
        entry.message for entry in result.logs() if entry.level in {"WARNING", "ERROR", "CRITICAL"}
    ]
    if result.timeout_count:
        said.append(f"No answer within {2 * timeout:g} s.")
    text = "; ".join(dict.fromkeys(said)) or "Apprise reported a failure and said no more."
    text = redact(text, secret_parts(url))
    raise AppriseError(f"{plugin.service_name}: {text}"[:ERROR_TEXT_LIMIT])
