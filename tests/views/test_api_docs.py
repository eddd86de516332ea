"""Swagger UI and Redoc pages: who may read them, and that they need nothing from
elsewhere and nothing the Content-Security-Policy forbids."""

from __future__ import annotations

from html.parser import HTMLParser

import pytest
from django.contrib.staticfiles import finders
from django.test import Client

pytestmark = pytest.mark.django_db

PAGES = ["/api/docs/", "/api/redoc/"]


class _Assets(HTMLParser):
    """What a page loads (script src, link href) and what it writes inline."""

    def __init__(self) -> None:
        super().__init__()
        self.loaded: list[str] = []
        self.inline: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "style" in found:
            self.inline.append(f"style attribute on <{tag}>")
        if tag == "script":
            if found.get("src"):
                self.loaded.append(found["src"] or "")
            self._in = "script"
        elif tag == "link" and found.get("rel") in ("stylesheet", "icon"):
            self.loaded.append(found.get("href") or "")
        elif tag == "style":
            self._in = "style"

    def handle_endtag(self, tag: str) -> None:
        self._in = None

    def handle_data(self, data: str) -> None:
        if self._in and data.strip():
            self.inline.append(f"inline <{self._in}>")


def _assets(html: str) -> _Assets:
    parser = _Assets()
    parser.feed(html)
    return parser


@pytest.mark.parametrize("url", PAGES)
def test_it_shows_the_page_to_a_signed_in_viewer(viewer, url):
    response = viewer.get(url)

    assert response.status_code == 200
    assert b'data-schema-url="/api/v1/schema/"' in response.content


@pytest.mark.parametrize("url", PAGES)
def test_it_loads_only_static_files_of_this_server_and_writes_nothing_inline(viewer, url):
    page = _assets(viewer.get(url).content.decode())

    assert page.loaded, "the page loads no viewer at all"
    for address in page.loaded:
        assert address.startswith("/static/"), address
        assert finders.find(address.removeprefix("/static/")), f"{address} is not a static file"
    assert any("drf_spectacular_sidecar/" in address for address in page.loaded)
    assert page.inline == []


def test_it_allows_redoc_a_nonce_for_its_styles_and_nothing_unsafe(viewer):
    swagger = viewer.get("/api/docs/")
    redoc = viewer.get("/api/redoc/")

    assert "unsafe" not in swagger["Content-Security-Policy"]
    assert "nonce-" not in swagger["Content-Security-Policy"]
    policy = redoc["Content-Security-Policy"]
    assert "unsafe" not in policy
    nonce = redoc.wsgi_request.csp_nonce
    assert f"'nonce-{nonce}'" in policy
    assert f'nonce="{nonce}"'.encode() in redoc.content


@pytest.mark.parametrize("url", PAGES)
def test_it_sends_anonymous_readers_to_the_login_page(url):
    response = Client().get(url)

    assert response.status_code == 302
    assert response["Location"].startswith(f"/accounts/login/?next={url}")


@pytest.mark.parametrize("url", PAGES)
def test_it_refuses_a_user_without_a_role(no_role, url):
    assert no_role.get(url).status_code == 403


def test_every_page_links_to_the_api_pages_in_its_footer(viewer):
    for url in ["/", "/units/", "/storage/"]:
        footer = viewer.get(url).content.decode().split('<footer class="site-footer">')[1]
        assert 'href="/api/docs/"' in footer, url
        assert 'href="/api/redoc/"' in footer, url
        assert 'href="/api/v1/schema/"' in footer, url
