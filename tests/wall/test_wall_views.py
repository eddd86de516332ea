from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dashboard.models import AuditEntry, WallLink
from dashboard.services import wall_links
from tests.support.users import make_user
from tests.wall import seeding

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _pipelines(settings):
    seeding.use_pipelines(settings)


@pytest.fixture
def token() -> str:
    return wall_links.wall_link_create(name="Operations room").token


def open_wall(client: Client, token: str, **kwargs):
    """Present the token once, as a kiosk does, then load the screen it is sent to."""
    exchanged = client.get(f"/wall/{token}/")
    assert exchanged.status_code == 302
    assert exchanged["Location"] == "/wall/"
    return client.get("/wall/", **kwargs)


def text_of(response) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", response.content.decode()))


# --- the kiosk page -------------------------------------------------------------


def test_the_token_opens_the_wall_with_the_pipeline_figures(client, token):
    now = timezone.now()
    seeding.busy_wall(now)

    response = open_wall(client, token)

    assert response.status_code == 200
    page = text_of(response)
    assert "Needs attention" in page
    assert "2 decisions waiting · 1 failure in 24 h · 1 store nearly full" in page
    assert "Default pipeline" in page
    assert "Oldest waits 3 h: approve-me" in page
    assert re.search(
        r'data-metric="in-progress">\s*<span class="metric-value">3<', response.content.decode()
    )
    assert "Nearly full" in page and "/var/preservation" in page
    assert response.content.decode().count("<svg") == 1  # one sparkline, one pipeline


def test_the_page_has_no_navigation_and_polls_its_own_address(client, token):
    response = open_wall(client, token)
    html = response.content.decode()

    assert "<nav" not in html
    assert "<a " not in html  # no link anywhere to follow
    assert "{#" not in html and "{%" not in html  # no template comment leaks as text
    assert 'hx-get="/wall/"' in html
    assert 'hx-trigger="every 10000ms, lookout:visible from:document"' in html
    assert "/static/dashboard/js/live.js" in html  # pauses polling while hidden
    assert 'hx-swap="outerHTML"' in html


def test_the_refresh_interval_comes_from_the_setting(client, token, settings):
    settings.LOOKOUT_WALL_REFRESH_SECONDS = 2.5

    html = open_wall(client, token).content.decode()

    assert "every 2500ms," in html
    assert '"timeout": 2500' in html  # a refresh that hangs longer counts as failed


def test_an_htmx_refresh_gets_only_the_live_region_with_nothing_around_it(client, token):
    response = open_wall(client, token, headers={"HX-Request": "true"})
    # Not even whitespace: an outerHTML swap would leave it behind in the page, every time.
    html = response.content.decode()

    assert response.status_code == 200
    assert html.startswith('<main id="wall-live"')
    assert html.endswith("</main>")
    assert "<html" not in html and "wall-connection" not in html
    assert "HX-Request" in response["Vary"]


def test_the_wall_is_never_cached_and_keeps_its_token_out_of_referrers(client, token):
    response = open_wall(client, token)

    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    assert response["Referrer-Policy"] == "no-referrer"


def test_a_stale_service_gets_a_loud_banner_with_its_age(client, token):
    now = timezone.now()
    seeding.busy_wall(now)
    seeding.failing_since(
        "workflow:default",
        last_success=now - timedelta(minutes=42),
        now=now,
        error="connection refused",
    )

    page = text_of(open_wall(client, token))

    assert "Stale Workflow service (Default pipeline): no fresh data for 42 min" in page
    assert "(connection refused)" in page
    assert "Stale, no fresh data for 42 min" in page  # on the pipeline's tile too
    assert "1 service not answering" in page


def test_during_an_outage_the_wall_still_shows_the_last_known_figures(
    client, token, socket_disabled
):
    now = timezone.now()
    seeding.busy_wall(now)
    seeding.failing_since(
        "workflow:default", last_success=now - timedelta(hours=2), now=now, error="timed out"
    )
    seeding.failing_since("storage", last_success=None, now=now, error="refused")

    response = open_wall(client, token)

    page = text_of(response)
    assert response.status_code == 200
    assert "Oldest waits" in page and "/var/preservation" in page
    assert "Workflow service (Default pipeline): no fresh data for 2 h" in page
    assert "Storage service: has never answered" in page


def test_an_empty_install_renders_a_calm_wall(client, token):
    page = text_of(open_wall(client, token))

    assert "No storage figures yet." in page
    assert "Starting up" in page and "Needs attention" not in page
    assert "Storage service: not asked yet" in page


def test_the_token_is_swapped_for_a_signed_httponly_strict_cookie_scoped_to_the_wall(client, token):
    response = client.get(f"/wall/{token}/")

    assert response.status_code == 302
    assert response["Location"] == "/wall/"
    assert list(response.cookies) == ["lookout_wall"]
    cookie = response.cookies["lookout_wall"]
    assert cookie["path"] == "/wall/"
    assert cookie["httponly"] is True
    assert cookie["samesite"] == "Strict"
    assert int(cookie["max-age"]) > 300 * 24 * 3600  # a kiosk runs for months
    assert token not in cookie.value
    assert cookie.value.count(":") >= 2  # signed: value, then its signature
    assert "no-cache" in response["Cache-Control"] or "max-age=0" in response["Cache-Control"]
    assert response["Referrer-Policy"] == "no-referrer"


def test_the_cookie_is_secure_in_production(client, token, settings):
    settings.SESSION_COOKIE_SECURE = True

    assert client.get(f"/wall/{token}/").cookies["lookout_wall"]["secure"] is True


def test_the_screen_and_its_refreshes_carry_no_token(client, token):
    page = open_wall(client, token)
    refresh = client.get("/wall/", headers={"HX-Request": "true"})

    assert page.status_code == refresh.status_code == 200
    for response in (page, refresh):
        assert token not in response.content.decode()
        assert response.cookies == {}  # the cookie is set once, not on every refresh
    assert 'hx-get="/wall/"' in page.content.decode()
    assert refresh.content.decode().startswith('<main id="wall-live"')


def test_an_old_screen_polling_its_token_address_is_sent_to_the_wall(client, token):
    response = client.get(f"/wall/{token}/", headers={"HX-Request": "true"})

    assert response["HX-Redirect"] == "/wall/"
    assert "lookout_wall" in response.cookies


def test_a_cookie_that_was_not_signed_by_lookout_opens_nothing(client, token):
    link = WallLink.objects.get()
    client.cookies["lookout_wall"] = wall_links.wall_cookie_value(link)

    response = client.get("/wall/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_a_cookie_for_another_link_with_the_same_id_opens_nothing(client, token):
    open_wall(client, token)
    WallLink.objects.update(token_hash="0" * 64)  # a database restored from elsewhere

    response = client.get("/wall/")

    assert response.status_code == 404
    assert "This wall link is not valid." in text_of(response)
    assert response.cookies["lookout_wall"].value == ""  # deleted


def test_the_page_records_that_the_link_was_used(client, token):
    client.get(f"/wall/{token}/")

    assert WallLink.objects.get().last_used_at is not None


def test_every_refresh_records_that_the_link_is_in_use(client, token):
    open_wall(client, token)
    WallLink.objects.update(last_used_at=None)

    client.get("/wall/", headers={"HX-Request": "true"})

    assert WallLink.objects.get().last_used_at is not None


def test_an_unknown_token_gets_a_plain_404(client, token):
    response = client.get(f"/wall/{'B' * 43}/")

    assert response.status_code == 404
    assert "This wall link is not valid." in text_of(response)
    assert "Default pipeline" not in text_of(response)


def test_a_revoked_token_gets_a_plain_403(client, token):
    wall_links.wall_link_revoke(name="Operations room")

    response = client.get(f"/wall/{token}/")

    assert response.status_code == 403
    assert "This wall link has been revoked." in text_of(response)


def test_revoking_ends_the_cookie_at_the_next_refresh_which_stops_polling(client, token):
    assert open_wall(client, token).status_code == 200
    wall_links.wall_link_revoke(name="Operations room")

    response = client.get("/wall/", headers={"HX-Request": "true"})
    html = response.content.decode()

    assert response.status_code == 403
    assert "This wall link has been revoked." in text_of(response)
    assert response.cookies["lookout_wall"].value == ""  # deleted
    assert client.get("/wall/").status_code == 302  # to the login page, from now on
    assert html.endswith("</main>")
    assert html.startswith('<main id="wall-live"')
    assert "hx-trigger" not in html and "hx-get" not in html


def test_the_wall_accepts_only_get(client, token):
    assert client.post(f"/wall/{token}/").status_code == 405


# --- the same screen for logged-in users -------------------------------------------


def test_wall_without_a_token_needs_a_login(client):
    response = client.get("/wall/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_wall_without_a_token_opens_for_a_viewer(client):
    client.force_login(make_user("vera", "viewer"))

    response = client.get("/wall/")

    assert response.status_code == 200
    assert 'hx-get="/wall/"' in response.content.decode()


def test_wall_without_a_token_is_refused_to_a_user_without_a_role(client):
    client.force_login(make_user("nobody"))

    assert client.get("/wall/").status_code == 403


# --- managing links -----------------------------------------------------------------


@pytest.fixture
def admin_client() -> Client:
    client = Client(enforce_csrf_checks=False)
    client.force_login(make_user("alice", "admin"))
    return client


def test_the_links_page_needs_a_login(client):
    response = client.get("/wall/links/")

    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


@pytest.mark.parametrize("role", ["viewer", "operator"])
def test_only_admins_manage_links(client, role):
    client.force_login(make_user("someone", role))

    assert client.get("/wall/links/").status_code == 403
    assert client.post("/wall/links/create/", {"name": "x"}).status_code == 403
    assert not WallLink.objects.exists()


def test_an_admin_creates_a_link_and_sees_its_address_once(admin_client):
    response = admin_client.post("/wall/links/create/", {"name": "Operations room"})

    assert response.status_code == 200
    assert "no-store" in response["Cache-Control"]
    found = re.search(
        r'value="(http://testserver/wall/([A-Za-z0-9_-]{43})/)"', response.content.decode()
    )
    assert found is not None
    address, token = found.groups()
    assert wall_links.wall_link_verify(token=token).granted
    assert token not in admin_client.get("/wall/links/").content.decode()
    assert Client().get(address.removeprefix("http://testserver"), follow=True).status_code == 200
    assert AuditEntry.objects.get().action == "wall_link_create"


def test_a_duplicate_name_is_refused_on_the_page(admin_client):
    wall_links.wall_link_create(name="Lobby")

    response = admin_client.post("/wall/links/create/", {"name": "Lobby"})

    assert response.status_code == 400
    assert "already exists" in text_of(response)
    assert WallLink.objects.count() == 1


def test_the_create_form_needs_csrf(client):
    client = Client(enforce_csrf_checks=True)
    client.force_login(make_user("alice", "admin"))

    assert client.post("/wall/links/create/", {"name": "Lobby"}).status_code == 403
    assert not WallLink.objects.exists()


def test_revoking_asks_for_confirmation_first(admin_client):
    link = wall_links.wall_link_create(name="Lobby").link

    response = admin_client.get(f"/wall/links/{link.pk}/revoke/")

    assert response.status_code == 200
    assert "Revoke the wall link “Lobby”?" in text_of(response)
    assert 'method="post"' in response.content.decode()
    assert WallLink.objects.get().active


def test_an_admin_revokes_a_link_and_its_screen_stops(admin_client):
    created = wall_links.wall_link_create(name="Lobby")

    response = admin_client.post(f"/wall/links/{created.link.pk}/revoke/", follow=True)

    assert response.redirect_chain[-1][0] == "/wall/links/"
    assert "Revoked “Lobby”" in text_of(response)
    assert not WallLink.objects.get().active
    assert Client().get(f"/wall/{created.token}/").status_code == 403
    assert list(AuditEntry.objects.values_list("action", "actor_name").order_by("id")) == [
        ("wall_link_create", "unknown"),
        ("wall_link_revoke", "alice"),
    ]


def test_revoking_an_unknown_link_is_a_404(admin_client):
    assert admin_client.post("/wall/links/999/revoke/").status_code == 404


def test_a_kiosk_never_gets_the_links_a_signed_in_viewer_sees(client, token):
    # The live region is cached per variant: the viewer's linked one must not reach a kiosk.
    seeding.busy_wall(timezone.now())
    viewer = Client()
    viewer.force_login(make_user("vera", "viewer"))

    signed_in = viewer.get("/wall/").content.decode()
    kiosk = open_wall(client, token).content.decode()

    assert 'href="/units/?pipeline=default"' in signed_in
    assert 'href="/units/' not in kiosk and 'href="/storage/' not in kiosk
