from __future__ import annotations

import pytest
from django.contrib.auth.models import Group

from dashboard.lib.roles import user_has_role
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


def test_the_three_role_groups_exist_after_migrate_with_their_permissions():
    operator = Group.objects.get(name="operator")
    admin = Group.objects.get(name="admin")

    assert Group.objects.get(name="viewer").permissions.count() == 0
    assert operator.permissions.filter(codename="approve_transfer").exists()
    assert not operator.permissions.filter(codename="manage_wall_links").exists()
    assert admin.permissions.filter(codename="change_user").exists()


def test_an_admin_becomes_staff_to_manage_users_and_stops_being_staff_when_removed():
    user = make_user("ada", "admin")
    user.refresh_from_db()
    assert user.is_staff

    user.groups.remove(Group.objects.get(name="admin"))
    user.refresh_from_db()
    assert not user.is_staff


def test_adding_a_user_from_the_group_side_also_sets_staff():
    user = make_user("bob")
    Group.objects.get(name="admin").user_set.add(user)

    user.refresh_from_db()
    assert user.is_staff


def test_a_user_without_a_role_may_not_read_the_dashboard():
    assert not user_has_role(make_user("nobody"))
    assert user_has_role(make_user("reader", "viewer"))
