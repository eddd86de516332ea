"""Sign-in to the workflow service's own dashboard, as its Django login view does it.

- `GET /administration/accounts/login/` sets the `csrftoken` cookie (a 32-character
  secret) and renders a form whose `csrfmiddlewaretoken` is that secret masked (64
  characters, different on every page), as Django does.
- A POST needs the cookie and the token (the form field or `X-CSRFToken`, masked or
  not); otherwise 403 "CSRF verification failed".
- A good sign-in answers 302 with a `sessionid` cookie and a new `csrftoken` (Django
  rotates the token at login); a bad one renders the form again with 200.
- Sessions end after `max_age` seconds, or after `idle` seconds unused (0: never).
"""

from __future__ import annotations

import html
import secrets
import string
import threading
import time
from dataclasses import dataclass
from http.cookies import CookieError, SimpleCookie
from urllib.parse import quote

from simulator.wsgi import Request, Response, text_response

LOGIN_PATH = "/administration/accounts/login/"
CSRF_COOKIE = "csrftoken"
SESSION_COOKIE = "sessionid"
CSRF_ALPHABET = string.ascii_letters + string.digits
SECRET_LENGTH = 32
CSRF_COOKIE_MAX_AGE = 31449600  # Django's default: a year
HTML = "text/html; charset=utf-8"
CSRF_FAILURE_PAGE = (
    '<!DOCTYPE html>\n<html lang="en">\n<head><title>403 Forbidden</title></head>\n'
    "<body><h1>Forbidden <span>(403)</span></h1><p>CSRF verification failed. "
    "Request aborted.</p></body>\n</html>\n"
)


def cookies_of(request: Request) -> dict[str, str]:
    jar: SimpleCookie = SimpleCookie()
    try:
        jar.load(request.header("Cookie"))
    except CookieError:
        return {}
    return {name: morsel.value for name, morsel in jar.items()}


def _shifted(text: str, key: str, sign: int) -> str:
    """Each character of `text` moved by the matching one of `key` through the alphabet."""
    size = len(CSRF_ALPHABET)
    return "".join(
        CSRF_ALPHABET[(CSRF_ALPHABET.index(c) + sign * CSRF_ALPHABET.index(k)) % size]
        for c, k in zip(text, key, strict=True)
    )


def _mask(secret: str) -> str:
    mask = "".join(secrets.choice(CSRF_ALPHABET) for _ in range(SECRET_LENGTH))
    return mask + _shifted(secret, mask, 1)


def _unmask(token: str) -> str:
    return _shifted(token[SECRET_LENGTH:], token[:SECRET_LENGTH], -1)


def _well_formed(token: str, lengths: tuple[int, ...]) -> bool:
    return len(token) in lengths and all(c in CSRF_ALPHABET for c in token)


def csrf_ok(request: Request) -> bool:
    """The POST's token (field or header) matches its `csrftoken` cookie, as Django checks."""
    secret = cookies_of(request).get(CSRF_COOKIE, "")
    if not _well_formed(secret, (SECRET_LENGTH,)):
        return False
    token = request.form_value("csrfmiddlewaretoken") or request.header("X-CSRFToken")
    if not _well_formed(token, (SECRET_LENGTH, 2 * SECRET_LENGTH)):
        return False
    plain = token if len(token) == SECRET_LENGTH else _unmask(token)
    return secrets.compare_digest(plain, secret)


def csrf_failure() -> Response:
    return text_response(CSRF_FAILURE_PAGE, 403, HTML)


def _cookie(name: str, value: str, max_age: int, *, http_only: bool) -> tuple[str, str]:
    attributes = f"{name}={value}; Max-Age={max_age}; Path=/; SameSite=Lax"
    return "Set-Cookie", attributes + ("; HttpOnly" if http_only else "")


def redirect_to_login(request: Request) -> Response:
    target = request.path + (f"?{request.query_string}" if request.query_string else "")
    location = f"{LOGIN_PATH}?next={quote(target, safe='/')}"
    return text_response("", 302, HTML, [("Location", location)])


@dataclass
class Session:
    created: float
    last_seen: float


class Sessions:
    """Signed-in sessions by key, the account to check, and their expiry."""

    def __init__(self, *, user: str, password: str, max_age: float, idle: float) -> None:
        self.user = user
        self.password = password
        self.max_age = max_age
        self.idle = idle
        self._sessions: dict[str, Session] = {}
        self._lock = threading.Lock()

    def signed_in(self, request: Request) -> bool:
        key = cookies_of(request).get(SESSION_COOKIE, "")
        now = time.monotonic()
        with self._lock:
            session = self._sessions.get(key)
            if session is None:
                return False
            expired = now - session.created >= self.max_age or (
                self.idle > 0 and now - session.last_seen >= self.idle
            )
            if expired:
                del self._sessions[key]
                return False
            session.last_seen = now
            return True

    def expire_all(self) -> int:
        with self._lock:
            count = len(self._sessions)
            self._sessions.clear()
            return count

    def login_page(self, request: Request) -> Response:
        """GET: the form; the cookie is set when the browser has none yet."""
        secret = cookies_of(request).get(CSRF_COOKIE, "")
        headers = []
        if not _well_formed(secret, (SECRET_LENGTH,)):
            secret = "".join(secrets.choice(CSRF_ALPHABET) for _ in range(SECRET_LENGTH))
            headers.append(_cookie(CSRF_COOKIE, secret, CSRF_COOKIE_MAX_AGE, http_only=False))
        next_url = request.query_value("next") or ""
        return self._form(secret, next_url, headers, error=False)

    def login(self, request: Request) -> Response:
        """POST: sign in, or the form again with 200 when the account is refused."""
        if not csrf_ok(request):
            return csrf_failure()
        secret = cookies_of(request)[CSRF_COOKIE]
        next_url = request.form_value("next") or request.query_value("next") or ""
        user = request.form_value("username") or ""
        password = request.form_value("password") or ""
        good = secrets.compare_digest(user.encode(), self.user.encode()) and (
            secrets.compare_digest(password.encode(), self.password.encode())
        )
        if not good:
            return self._form(secret, next_url, [], error=True)
        key = secrets.token_hex(16)
        now = time.monotonic()
        with self._lock:
            self._sessions[key] = Session(created=now, last_seen=now)
        rotated = "".join(secrets.choice(CSRF_ALPHABET) for _ in range(SECRET_LENGTH))
        target = next_url if next_url.startswith("/") and not next_url.startswith("//") else "/"
        headers = [
            ("Location", target),
            _cookie(CSRF_COOKIE, rotated, CSRF_COOKIE_MAX_AGE, http_only=False),
            _cookie(SESSION_COOKIE, key, int(self.max_age), http_only=True),
        ]
        return text_response("", 302, HTML, headers)

    @staticmethod
    def _form(
        secret: str, next_url: str, headers: list[tuple[str, str]], *, error: bool
    ) -> Response:
        message = (
            '<ul class="errorlist"><li>Please enter a correct username and password. '
            "Note that both fields may be case-sensitive.</li></ul>\n"
            if error
            else ""
        )
        page = (
            '<!DOCTYPE html>\n<html lang="en">\n<head><title>Log in</title></head>\n<body>\n'
            f"{message}"
            f'<form method="post" action="{LOGIN_PATH}">\n'
            '<input type="hidden" name="csrfmiddlewaretoken" '
            f'value="{_mask(secret)}">\n'
            '<input type="text" name="username" id="id_username" required>\n'
            '<input type="password" name="password" id="id_password" required>\n'
            f'<input type="hidden" name="next" value="{html.escape(next_url)}">\n'
            '<button type="submit">Log in</button>\n</form>\n</body>\n</html>\n'
        )
        return text_response(page, 200, HTML, headers)
