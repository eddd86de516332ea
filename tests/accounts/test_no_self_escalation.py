"""A Lookout admin who is not a superuser cannot give anyone, themselves included, more
than they hold through Django's admin; every role change is audit-logged."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Group, Permission, User
from django.test import Client

from dashboard.models import AuditEntry
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


@pytest.fixture
def alice() -> User:
    return make_user("alice", "admin")


@pytest.fixture
def admin_client(alice) -> Client:
    client = Client()
    client.force_login(alice)
    return client


def change_form(user: User, **overrides) -> dict:
    data = {
        "username": user.username,
        "first_name": "",
        "last_name": "",
        "email": "",
        "is_active": "on",
        "groups": [g.pk for g in user.groups.all()],
        "last_login_0": "",
        "last_login_1": "",
        "date_joined_0": "2026-01-01",
        "date_joined_1": "00:00:00",
    }
    data.update(overrides)
    return {k: v for k, v in data.items() if v is not None}


def post_change(client: Client, user: User, **overrides):
    return client.post(f"/admin/auth/user/{user.pk}/change/", change_form(user, **overrides))


def test_an_admin_cannot_make_themselves_superuser_or_staff_or_grant_permissions(
    admin_client, alice
):
    everything = [p.pk for p in Permission.objects.all()]

    page = admin_client.get(f"/admin/auth/user/{alice.pk}/change/").content.decode()
    post_change(admin_client, alice, is_superuser="on", is_staff="on", user_permissions=everything)

    assert 'name="is_superuser"' not in page and 'name="user_permissions"' not in page
    alice.refresh_from_db()
    assert not alice.is_superuser
    assert not alice.user_permissions.exists()


def test_an_admin_cannot_escalate_someone_else_either(admin_client):
    vera = make_user("vera", "viewer")

    post_change(admin_client, vera, is_superuser="on", is_staff="on")

    vera.refresh_from_db()
    assert not vera.is_superuser and not vera.is_staff


def test_an_admin_may_only_assign_groups_within_their_own_permissions(admin_client):
    vera = make_user("vera", "viewer")
    mighty = Group.objects.create(name="mighty")
    mighty.permissions.set(Permission.objects.filter(codename="change_group"))

    page = admin_client.get(f"/admin/auth/user/{vera.pk}/change/").content.decode()
    response = post_change(admin_client, vera, groups=[mighty.pk])

    assert re.search(r'<option value="\d+"[^>]*>operator</option>', page)
    assert ">mighty</option>" not in page
    assert response.status_code == 200  # the form again, with the choice refused
    assert not vera.groups.filter(name="mighty").exists()


def test_an_admin_cannot_change_or_delete_a_superuser(admin_client):
    root = User.objects.create_superuser("root", password="x" * 20)

    page = admin_client.get(f"/admin/auth/user/{root.pk}/change/").content.decode()
    assert 'name="_save"' not in page  # shown read-only at most
    assert post_change(admin_client, root, username="taken-over").status_code == 403
    assert admin_client.post(f"/admin/auth/user/{root.pk}/password/", {}).status_code == 403
    assert (
        admin_client.post(f"/admin/auth/user/{root.pk}/delete/", {"post": "yes"}).status_code == 403
    )
    assert User.objects.filter(username="root", is_superuser=True).exists()
    assert User.objects.get(username="root").check_password("x" * 20)


def test_role_changes_are_audit_logged_with_before_and_after(admin_client):
    vera = make_user("vera", "viewer")
    operator = Group.objects.get(name="operator")

    response = post_change(admin_client, vera, groups=[operator.pk])

    assert response.status_code == 302
    entry = AuditEntry.objects.get(action="user_roles_change")
    assert (entry.actor_name, entry.target) == ("alice", "vera")
    assert entry.parameters["before"]["groups"] == ["viewer"]
    assert entry.parameters["after"]["groups"] == ["operator"]


def test_a_superuser_still_manages_everything():
    root = User.objects.create_superuser("root", password="x" * 20)
    client = Client()
    client.force_login(root)
    vera = make_user("vera", "viewer")

    post_change(client, vera, is_superuser="on", is_staff="on")

    vera.refresh_from_db()
    assert vera.is_superuser
    assert AuditEntry.objects.filter(action="user_roles_change", target="vera").exists()
