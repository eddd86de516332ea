"""Outbound alert delivery: e-mail through Django's mail settings, and webhook POSTs.

The only code that sends a message out of Lookout. Every failure becomes a
`NotifyError` with a message safe to store and show (no secret, no body beyond a
short excerpt). Webhook bodies are signed with HMAC-SHA256 over the exact bytes sent:
`X-Lookout-Signature: sha256=<hex>`.
"""

from __future__ import annotations

import hashlib
import hmac
import smtplib
from collections.abc import Mapping

import requests
from django.core.mail import EmailMessage, get_connection
from django.utils.translation import gettext

from dashboard.clients.base import USER_AGENT
from dashboard.lib.redaction import redact

SIGNATURE_HEADER = "X-Lookout-Signature"
MESSAGE_ID_HEADER = "X-Lookout-Message-Id"
ERROR_BODY_LIMIT = 200


class NotifyError(Exception):
    """A message was not delivered; the text says why."""


def signature(secret: str, body: bytes) -> str:
    """The header value a receiver recomputes: `sha256=` and the hex HMAC of the body."""
    digest = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return f"sha256={digest}"


def webhook_post(
    *,
    url: str,
    body: bytes,
    secret: str = "",
    message_id: str = "",
    timeout: float = 10.0,
    session: requests.Session | None = None,
) -> int:
    """POST a JSON body; 2xx is delivered (returns the status), anything else raises.

    Redirects are not followed: a signed body must reach the address it was made for.
    """
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
    }
    if secret:
        headers[SIGNATURE_HEADER] = signature(secret, body)
    if message_id:
        headers[MESSAGE_ID_HEADER] = message_id
    sender = session or requests
    try:
        answer = sender.post(
            url, data=body, headers=headers, timeout=(timeout, timeout), allow_redirects=False
        )
    except requests.Timeout:
        raise NotifyError(
            gettext("No answer within %(seconds)s s.") % {"seconds": f"{timeout:g}"}
        ) from None
    except requests.RequestException as exc:
        raise NotifyError(
            redact(gettext("Could not reach the webhook: %(error)s") % {"error": exc})
        ) from None
    if not 200 <= answer.status_code < 300:
        excerpt = redact(answer.text[:ERROR_BODY_LIMIT])
        raise NotifyError(
            (
                gettext("The webhook answered HTTP %(status)s: %(excerpt)s")
                % {"status": answer.status_code, "excerpt": excerpt}
            ).strip()
        )
    return answer.status_code


def email_send(
    *,
    to: str,
    subject: str,
    body: str,
    headers: Mapping[str, str] | None = None,
) -> None:
    """Send one plain-text e-mail with Django's configured backend (EMAIL_* settings)."""
    message = EmailMessage(
        subject=subject.replace("\n", " ")[:200],
        body=body,
        to=[to],
        headers=dict(headers or {}),
        connection=get_connection(fail_silently=False),
    )
    try:
        sent = message.send(fail_silently=False)
    except (smtplib.SMTPException, OSError) as exc:
        raise NotifyError(
            redact(
                gettext("The mail server refused or could not be reached: %(error)s")
                % {"error": exc}
            )
        ) from None
    if sent != 1:
        raise NotifyError(gettext("The mail backend sent nothing."))
