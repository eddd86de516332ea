"""Roles from the directory: set again at every login from LOOKOUT_ROLE_MAP, each change
an audit row, no mapped group -> the "no access" page, and tokens follow the roles."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, User
from django.test import Client

from dashboard.models import AuditEntry, DirectoryAccount
from dashboard.services.directory_roles import apply_directory_roles
from tests.support.api_tokens import api_token_for
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

OPS_DN = "cn=ops,ou=groups,dc=example,dc=org"
ROLE_MAP = {"archivists": "viewer", OPS_DN: "operator", "lookout-admins": "admin"}


@pytest.fixture(autouse=True)
def _role_map(settings):
    settings.LOOKOUT_ROLE_MAP = ROLE_MAP


def directory_user(name: str = "dora") -> User:
    user = User.objects.create_user(username=name)  # no password: from the directory
    return user


def roles_of(user: User) -> list[str]:
    return sorted(user.groups.values_list("name", flat=True))


def test_it_gives_the_roles_the_groups_map_to_and_ignores_other_groups():
    user = directory_user()

    roles = apply_directory_roles(
        user=user, groups=["archivists", "cafeteria", "lookout-admins"], source="oidc"
    )

    assert roles == ["viewer", "admin"]
    assert roles_of(user) == ["admin", "viewer"]
    assert DirectoryAccount.objects.get(user=user).source == "oidc"


def test_it_matches_a_group_dn_whatever_its_case_and_spacing():
    user = directory_user()

    roles = apply_directory_roles(
        user=user, groups=["CN=Ops, OU=Groups, DC=Example, DC=Org"], source="ldap"
    )

    assert roles == ["operator"]


def test_a_claim_value_is_matched_exactly():
    user = directory_user()

    assert apply_directory_roles(user=user, groups=["Archivists"], source="oidc") == []


def test_a_group_left_takes_its_role_away_at_the_next_login_with_an_audit_row():
    user = directory_user()
    apply_directory_roles(user=user, groups=[OPS_DN], source="ldap")

    roles = apply_directory_roles(user=user, groups=["archivists"], source="ldap")

    assert roles == ["viewer"]
    assert roles_of(user) == ["viewer"]
    rows = list(AuditEntry.objects.filter(target="dora").order_by("id"))
    assert [(r.action, r.parameters["role"]) for r in rows] == [
        ("directory_role_grant", "operator"),
        ("directory_role_grant", "viewer"),
        ("directory_role_revoke", "operator"),
    ]
    assert all(r.parameters["source"] == "ldap" for r in rows)
    assert rows[0].parameters["groups"] == [OPS_DN]
    assert "Role operator taken from dora" in rows[2].target_label


def test_a_login_that_changes_nothing_writes_no_audit_row():
    user = directory_user()
    apply_directory_roles(user=user, groups=["archivists"], source="oidc")
    before = AuditEntry.objects.count()

    apply_directory_roles(user=user, groups=["archivists"], source="oidc")

    assert AuditEntry.objects.count() == before


def test_groups_that_are_not_roles_are_left_alone():
    user = directory_user()
    hand_made = Group.objects.create(name="wall-screen-team")
    user.groups.add(hand_made)

    apply_directory_roles(user=user, groups=[], source="oidc")

    assert roles_of(user) == ["wall-screen-team"]


def test_an_admin_role_makes_the_user_staff_and_losing_it_undoes_that():
    user = directory_user()
    apply_directory_roles(user=user, groups=["lookout-admins"], source="oidc")
    user.refresh_from_db()
    assert user.is_staff

    apply_directory_roles(user=user, groups=["archivists"], source="oidc")
    user.refresh_from_db()
    assert not user.is_staff


def test_a_user_with_no_mapped_group_gets_the_no_access_page(settings):
    settings.LOOKOUT_ACCESS_CONTACT = "the archive's IT desk (it@example.org)"
    user = directory_user()
    apply_directory_roles(user=user, groups=[OPS_DN], source="ldap")
    apply_directory_roles(user=user, groups=["cafeteria"], source="ldap")
    client = Client()
    client.force_login(user)

    response = client.get("/")

    assert response.status_code == 403
    page = response.content.decode()
    assert "No access" in page
    assert "You are signed in as <strong>dora</strong>" in page
    assert "no Lookout role" in page
    assert "it@example.org" in page


def test_an_api_token_stops_working_when_the_last_login_found_no_role():
    user = directory_user()
    apply_directory_roles(user=user, groups=["archivists"], source="oidc")
    token = api_token_for(user)
    auth = {"HTTP_AUTHORIZATION": f"Bearer {token}"}
    assert Client().get("/api/v1/units/", **auth).status_code == 200

    apply_directory_roles(user=user, groups=[], source="oidc")

    assert Client().get("/api/v1/units/", **auth).status_code == 403


def test_an_api_token_of_a_deactivated_directory_user_is_refused():
    user = directory_user()
    apply_directory_roles(user=user, groups=["archivists"], source="oidc")
    token = api_token_for(user)
    User.objects.filter(pk=user.pk).update(is_active=False)

    response = Client().get("/api/v1/units/", HTTP_AUTHORIZATION=f"Bearer {token}")

    assert response.status_code == 401


def test_the_first_directory_login_drops_a_local_password_but_a_superuser_keeps_theirs():
    former_local = make_user("lena", "viewer")
    break_glass = User.objects.create_superuser("root", password="break glass 123")

    apply_directory_roles(user=former_local, groups=["archivists"], source="ldap")
    apply_directory_roles(user=break_glass, groups=[], source="ldap")

    former_local.refresh_from_db()
    break_glass.refresh_from_db()
    assert not former_local.has_usable_password()
    assert break_glass.check_password("break glass 123")
