"""Personal API tokens: the settings page that makes, lists and revokes them, and what a
token opens (its owner's roles, until it is revoked)."""

from __future__ import annotations

import hashlib
import logging
import re

import pytest
from django.test import Client
from django.urls import reverse

from dashboard.lib.log_filters import WallTokenFilter
from dashboard.lib.secret_redaction import RedactingFormatter
from dashboard.models import ApiToken, AuditEntry
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

TOKENS = "/accounts/tokens/"
TOKEN_SHAPE = re.compile(r"lookout_[0-9a-f]{8}_[A-Za-z0-9_-]{43}")


def _key(client: Client, url: str = TOKENS) -> str:
    page = client.get(url).content.decode()
    return re.search(r'name="idempotency_key" value="([^"]+)"', page).group(1)


def _create(client: Client, name: str = "nightly report", key: str | None = None) -> str:
    """Make a token through the page; the token as the page shows it (once)."""
    response = client.post(
        reverse("dashboard:api-token-create"),
        {"name": name, "idempotency_key": key or _key(client)},
    )
    assert response.status_code == 200, response.content
    return TOKEN_SHAPE.search(response.content.decode()).group(0)


def _revoke(client: Client, token: ApiToken):
    url = reverse("dashboard:api-token-revoke", args=[token.pk])
    return client.post(url, {"idempotency_key": _key(client, url)})


def _api(token: str, scheme: str = "Bearer", path: str = "/api/v1/units/"):
    return Client().get(path, headers={"Authorization": f"{scheme} {token}"})


def test_it_shows_a_new_token_once_and_keeps_only_its_hash(viewer):
    token = _create(viewer)

    stored = ApiToken.objects.get()
    assert stored.name == "nightly report"
    assert stored.secret_hash == hashlib.sha256(token.encode()).hexdigest()
    assert token.startswith(f"lookout_{stored.prefix}_")
    assert token not in str(list(ApiToken.objects.values()))
    listing = viewer.get(TOKENS).content.decode()
    assert "nightly report" in listing and f"lookout_{stored.prefix}_" in listing
    assert token not in listing


@pytest.mark.parametrize("scheme", ["Bearer", "Token", "bearer"])
def test_a_token_opens_the_api_as_its_owner(viewer, scheme):
    token = _create(viewer)

    assert _api(token, scheme).status_code == 200


def test_a_token_carries_its_owners_roles_and_no_more(viewer, operator):
    from_viewer = _create(viewer)
    from_operator = _create(operator)

    # Starting a transfer needs the operator role: the viewer's token is refused outright,
    # the operator's passes the permission and meets the body's validation.
    viewer_call = Client().post(
        "/api/v1/transfers/", {}, headers={"Authorization": f"Bearer {from_viewer}"}
    )
    operator_call = Client().post(
        "/api/v1/transfers/", {}, headers={"Authorization": f"Bearer {from_operator}"}
    )
    assert viewer_call.status_code == 403
    assert operator_call.status_code == 400


def test_a_token_of_a_user_who_lost_their_role_opens_nothing(viewer):
    token = _create(viewer)
    user = ApiToken.objects.get().user
    user.groups.clear()

    assert _api(token).status_code == 403


def test_a_token_of_a_deactivated_user_gets_401(viewer):
    token = _create(viewer)
    user = ApiToken.objects.get().user
    user.is_active = False
    user.save(update_fields=["is_active"])

    assert _api(token).status_code == 401


def test_a_revoked_token_gets_401(viewer):
    token = _create(viewer)
    assert _api(token).status_code == 200

    response = _revoke(viewer, ApiToken.objects.get())

    assert response.status_code == 302
    assert "a call that presents it now gets 401" in viewer.get(TOKENS).content.decode()
    refused = _api(token)
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"] == 'Bearer realm="api"'


@pytest.mark.parametrize(
    "presented",
    [
        "lookout_00000000_" + "A" * 43,  # the right shape, no such token
        "not-a-token",
        "",
    ],
)
def test_a_token_it_does_not_know_gets_401(viewer, presented):
    _create(viewer)

    assert _api(presented).status_code == 401


def test_a_guess_with_a_real_prefix_gets_401(viewer):
    token = _create(viewer)
    guess = token[:-1] + ("A" if token[-1] != "A" else "B")

    assert _api(guess).status_code == 401


def test_it_records_when_a_token_was_last_used(viewer):
    token = _create(viewer)
    assert "never" in viewer.get(TOKENS).content.decode()

    _api(token)

    assert ApiToken.objects.get().last_used_at is not None
    assert "just now" in viewer.get(TOKENS).content.decode()


def test_creating_and_revoking_are_audited_with_their_outcome(viewer):
    _create(viewer, "deploy check")
    token = ApiToken.objects.get()
    _revoke(viewer, token)

    entries = AuditEntry.objects.filter(target_kind="api_token").order_by("id")
    assert [(e.action, e.actor_name, e.target, e.outcome) for e in entries] == [
        ("api_token_create", "vera", token.prefix, AuditEntry.Outcome.DONE),
        ("api_token_revoke", "vera", token.prefix, AuditEntry.Outcome.DONE),
    ]
    assert "deploy check" in entries[0].target_label


def test_a_second_submit_of_the_same_form_makes_no_second_token(viewer):
    key = _key(viewer)
    _create(viewer, key=key)

    again = viewer.post(
        reverse("dashboard:api-token-create"), {"name": "nightly report", "idempotency_key": key}
    )

    assert again.status_code == 302
    assert ApiToken.objects.count() == 1
    assert AuditEntry.objects.filter(action="api_token_create").count() == 1
    assert "already sent" in viewer.get(TOKENS).content.decode()


def test_a_second_revoke_changes_nothing(viewer):
    _create(viewer)
    token = ApiToken.objects.get()
    url = reverse("dashboard:api-token-revoke", args=[token.pk])
    key = _key(viewer, url)
    viewer.post(url, {"idempotency_key": key})
    revoked_at = ApiToken.objects.get().revoked_at

    viewer.post(url, {"idempotency_key": key})

    assert ApiToken.objects.get().revoked_at == revoked_at
    assert AuditEntry.objects.filter(action="api_token_revoke").count() == 1


def test_two_live_tokens_of_one_person_cannot_share_a_name(viewer):
    _create(viewer, "report")

    response = viewer.post(
        reverse("dashboard:api-token-create"), {"name": " report ", "idempotency_key": _key(viewer)}
    )

    assert response.status_code == 400
    assert "already have a token named" in response.content.decode()
    assert ApiToken.objects.count() == 1


def test_a_person_sees_and_revokes_only_their_own_tokens(viewer, operator):
    _create(operator, "otto's script")
    theirs = ApiToken.objects.get()

    assert "otto&#x27;s script" not in viewer.get(TOKENS).content.decode()
    url = reverse("dashboard:api-token-revoke", args=[theirs.pk])
    assert viewer.get(url).status_code == 404
    assert viewer.post(url, {"idempotency_key": "k" * 24}).status_code == 404
    assert ApiToken.objects.get().active


def test_the_forms_need_the_csrf_token():
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("vera", "viewer"))

    response = client.post(
        reverse("dashboard:api-token-create"), {"name": "x", "idempotency_key": "k" * 24}
    )

    assert response.status_code == 403
    assert ApiToken.objects.count() == 0


def test_it_sends_anonymous_users_to_the_login_page():
    response = Client().get(TOKENS)

    assert response.status_code == 302
    assert response["Location"].startswith("/accounts/login/")


def test_it_refuses_a_user_without_a_role(no_role):
    assert no_role.get(TOKENS).status_code == 403
    assert (
        no_role.post(
            reverse("dashboard:api-token-create"), {"name": "x", "idempotency_key": "k" * 24}
        ).status_code
        == 403
    )
    assert ApiToken.objects.count() == 0


def test_it_escapes_a_hostile_name(viewer):
    _create(viewer, "<script>alert(1)</script>")

    listing = viewer.get(TOKENS).content.decode()
    assert "<script>alert(1)</script>" not in listing
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in listing


def test_a_token_never_reaches_a_log_line(viewer):
    token = _create(viewer)
    record = logging.LogRecord(
        "django.request", logging.WARNING, __file__, 1, "Unauthorized: %s", (token,), None
    )

    WallTokenFilter().filter(record)
    line = RedactingFormatter("%(message)s").format(record)

    assert token not in line
    assert line == f"Unauthorized: {token[:17]}[redacted]"
    assert token not in RedactingFormatter("%(message)s").format(
        logging.LogRecord(
            "x", logging.INFO, __file__, 1, f"Authorization: Bearer {token}", (), None
        )
    )
