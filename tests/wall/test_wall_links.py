from __future__ import annotations

import hashlib
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboard.models import AuditEntry, WallLink
from dashboard.services import wall_links
from tests.support.users import make_user

pytestmark = pytest.mark.django_db


def test_it_stores_only_the_sha256_of_the_token():
    created = wall_links.wall_link_create(name="Operations room", actor_name="tester")

    link = WallLink.objects.get(name="Operations room")
    assert link.token_hash == hashlib.sha256(created.token.encode()).hexdigest()
    stored = [str(v) for v in WallLink.objects.values_list(flat=False).get()]
    assert created.token not in " ".join(stored)


def test_every_link_gets_a_different_long_random_token():
    tokens = {wall_links.wall_link_create(name=f"screen {n}").token for n in range(5)}

    assert len(tokens) == 5
    assert all(wall_links.TOKEN_PATTERN.fullmatch(t) for t in tokens)


def test_a_live_token_is_granted_and_records_when_it_was_used():
    created = wall_links.wall_link_create(name="Lobby")
    now = timezone.now()

    access = wall_links.wall_link_verify(token=created.token, now=now)

    assert access.granted
    assert access.link.pk == created.link.pk
    assert WallLink.objects.get(pk=created.link.pk).last_used_at == now


def test_last_used_is_written_at_most_once_a_minute():
    created = wall_links.wall_link_create(name="Lobby")
    first = timezone.now()
    wall_links.wall_link_verify(token=created.token, now=first)

    wall_links.wall_link_verify(token=created.token, now=first + timedelta(seconds=10))
    assert WallLink.objects.get(pk=created.link.pk).last_used_at == first

    later = first + timedelta(minutes=2)
    wall_links.wall_link_verify(token=created.token, now=later)
    assert WallLink.objects.get(pk=created.link.pk).last_used_at == later


def test_an_unknown_token_is_not_granted():
    wall_links.wall_link_create(name="Lobby")

    access = wall_links.wall_link_verify(token="A" * 43)

    assert access.outcome is wall_links.Access.UNKNOWN
    assert access.link is None


@pytest.mark.parametrize("token", ["", "short", "x" * 44, "a" * 42 + "/", "é" * 43])
def test_something_that_is_not_a_token_is_refused_without_a_query(token, django_assert_num_queries):
    with django_assert_num_queries(0):
        access = wall_links.wall_link_verify(token=token)

    assert access.outcome is wall_links.Access.UNKNOWN


def test_a_revoked_token_is_refused_and_its_last_use_is_kept():
    created = wall_links.wall_link_create(name="Lobby")
    used = timezone.now() - timedelta(hours=1)
    wall_links.wall_link_verify(token=created.token, now=used)
    wall_links.wall_link_revoke(name="Lobby", actor_name="tester")

    access = wall_links.wall_link_verify(token=created.token)

    assert access.outcome is wall_links.Access.REVOKED
    assert WallLink.objects.get(pk=created.link.pk).last_used_at == used


def test_a_duplicate_name_is_refused_even_after_a_revoke():
    wall_links.wall_link_create(name="Lobby")
    with pytest.raises(wall_links.WallLinkExists, match="already exists"):
        wall_links.wall_link_create(name="Lobby")

    wall_links.wall_link_revoke(name="Lobby")
    with pytest.raises(wall_links.WallLinkExists):
        wall_links.wall_link_create(name="  Lobby ")


@pytest.mark.parametrize("name", ["", "   ", "x" * 81])
def test_an_empty_or_overlong_name_is_refused(name):
    with pytest.raises(wall_links.WallLinkInvalidName):
        wall_links.wall_link_create(name=name)

    assert not WallLink.objects.exists()


def test_revoking_an_unknown_or_revoked_link_says_so():
    with pytest.raises(wall_links.WallLinkNotFound, match="no wall link named “Nowhere”"):
        wall_links.wall_link_revoke(name="Nowhere")
    with pytest.raises(wall_links.WallLinkNotFound, match="with id 99"):
        wall_links.wall_link_revoke(link_id=99)

    wall_links.wall_link_create(name="Lobby")
    wall_links.wall_link_revoke(name="Lobby")
    with pytest.raises(wall_links.WallLinkAlreadyRevoked, match="already revoked"):
        wall_links.wall_link_revoke(name="Lobby")


def test_create_and_revoke_are_written_to_the_audit_log():
    admin = make_user("alice", "admin")

    wall_links.wall_link_create(name="Lobby", actor=admin)
    wall_links.wall_link_revoke(name="Lobby", actor_name="shell:root")

    entries = list(
        AuditEntry.objects.order_by("id").values_list(
            "action", "actor_id", "actor_name", "target_kind", "target", "outcome"
        )
    )
    assert entries == [
        ("wall_link_create", admin.pk, "alice", "wall_link", "Lobby", "done"),
        ("wall_link_revoke", None, "shell:root", "wall_link", "Lobby", "done"),
    ]


def test_the_url_is_built_from_the_public_base_url(settings):
    settings.LOOKOUT_PUBLIC_URL = "https://lookout.example.org/"

    assert (
        wall_links.wall_link_url(token="T" * 43) == f"https://lookout.example.org/wall/{'T' * 43}/"
    )
