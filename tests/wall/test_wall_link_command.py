from __future__ import annotations

import io
import re

import pytest
from django.core.management import CommandError, call_command
from django.test import Client

from dashboard.models import AuditEntry, WallLink
from dashboard.services import wall_links

pytestmark = pytest.mark.django_db


def run(*args: str) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    call_command("wall_link", *args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_create_prints_the_full_address_of_a_working_screen(settings):
    settings.LOOKOUT_PUBLIC_URL = "https://lookout.example.org"

    out, err = run("create", "Operations room")

    found = re.fullmatch(r"https://lookout\.example\.org(/wall/([A-Za-z0-9_-]{43})/)\n", out)
    assert found is not None, out
    path, token = found.groups()
    assert "shown only this once" in err
    assert wall_links.wall_link_verify(token=token).granted
    assert Client().get(path, follow=True).status_code == 200


def test_create_defaults_to_the_local_address():
    out, _ = run("create", "Lobby")

    assert out.startswith("http://127.0.0.1:8000/wall/")


def test_create_refuses_a_duplicate_name():
    run("create", "Lobby")

    with pytest.raises(CommandError, match="named “Lobby” already exists"):
        run("create", "Lobby")
    assert WallLink.objects.count() == 1


def test_revoke_stops_the_link():
    out, _ = run("create", "Lobby")
    path = out.strip().removeprefix("http://127.0.0.1:8000")

    revoked, _ = run("revoke", "Lobby")

    assert revoked == "Revoked wall link 'Lobby'.\n"
    assert Client().get(path).status_code == 403


def test_revoke_names_an_unknown_or_already_revoked_link():
    with pytest.raises(CommandError, match="There is no wall link named “Nowhere”"):
        run("revoke", "Nowhere")

    run("create", "Lobby")
    run("revoke", "Lobby")
    with pytest.raises(CommandError, match="already revoked"):
        run("revoke", "Lobby")


def test_the_shell_user_is_the_actor_in_the_audit_log():
    run("create", "Lobby")

    entry = AuditEntry.objects.get()
    assert entry.action == "wall_link_create"
    assert entry.actor is None
    assert entry.actor_name.startswith("shell")


def test_list_shows_state_without_tokens():
    out, _ = run("create", "Lobby")
    run("create", "Hall")
    run("revoke", "Hall")

    listing, _ = run("list")

    assert out.strip().rsplit("/", 2)[-2] not in listing
    assert re.search(r"^Hall\trevoked \d{4}-\d\d-\d\d \d\d:\d\d\tnever used$", listing, re.M)
    assert re.search(r"^Lobby\tactive\tnever used$", listing, re.M)


def test_an_action_is_required():
    with pytest.raises(CommandError):
        run()
