"""What a user may do is cached between requests, and forgotten at every change."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import Group, Permission
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboard.lib.roles import Role
from tests.support.users import make_user

pytestmark = pytest.mark.django_db

AUDIT = "/audit/"  # operators and admins (dashboard.view_audit)


def _auth_queries(client, path: str) -> list[str]:
    with CaptureQueriesContext(connection) as queries:
        client.get(path)
    return [q["sql"] for q in queries if "auth_permission" in q["sql"] or "auth_group" in q["sql"]]


def test_a_page_reads_the_role_and_permissions_once_between_changes(client):
    client.force_login(make_user("olga", "operator"))
    assert _auth_queries(client, "/")  # the first page asks the database
    assert _auth_queries(client, "/") == []
    assert _auth_queries(client, "/units/") == []


def test_a_role_taken_away_applies_at_the_next_request(client):
    user = make_user("oskar", "operator")
    client.force_login(user)
    assert client.get(AUDIT).status_code == 200
    user.groups.remove(Group.objects.get(name=Role.OPERATOR.value))
    user.groups.add(Group.objects.get_or_create(name=Role.VIEWER.value)[0])
    assert client.get(AUDIT).status_code == 403
    user.groups.clear()
    page = client.get("/")
    assert page.status_code == 403
    assert b"no Lookout role" in page.content


def test_a_permission_taken_from_a_group_applies_at_the_next_request(client):
    client.force_login(make_user("otto", "operator"))
    assert client.get(AUDIT).status_code == 200
    Group.objects.get(name=Role.OPERATOR.value).permissions.remove(
        Permission.objects.get(codename="view_audit")
    )
    assert client.get(AUDIT).status_code == 403


def test_a_deactivated_user_loses_every_permission_at_once(client):
    user = make_user("ola", "operator")
    client.force_login(user)
    assert client.get(AUDIT).status_code == 200
    user.is_active = False
    user.save()
    assert client.get(AUDIT).status_code != 200


def test_a_flushed_cache_reads_the_database_again_and_loses_nothing(client):
    client.force_login(make_user("oda", "operator"))
    assert client.get(AUDIT).status_code == 200
    cache.clear()
    assert _auth_queries(client, AUDIT)
    assert client.get(AUDIT).status_code == 200
