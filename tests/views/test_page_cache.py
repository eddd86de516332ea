"""Cached live regions: kept while nothing changes, rendered again after a change, and
never shared with anything personal."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache

from dashboard.lib import page_cache
from tests.views.seed import mark_polled, seed, unit

pytestmark = pytest.mark.django_db

CSRF = re.compile(r'"x-csrftoken": "([^"]+)"')


class Renders:
    def __init__(self) -> None:
        self.count = 0

    def __call__(self) -> str:
        self.count += 1
        return f"<p>render {self.count}</p>"


def test_it_renders_once_per_generation_and_again_after_a_bump():
    render = Renders()

    first = page_cache.cached_fragment("region", seconds=3600, render=render)
    again = page_cache.cached_fragment("region", seconds=3600, render=render)
    page_cache.bump()
    after = page_cache.cached_fragment("region", seconds=3600, render=render)

    assert first == again == "<p>render 1</p>"
    assert after == "<p>render 2</p>"


def test_it_renders_again_after_the_cache_is_flushed():
    render = Renders()
    page_cache.cached_fragment("region", seconds=3600, render=render)

    cache.clear()

    assert page_cache.cached_fragment("region", seconds=3600, render=render) == "<p>render 2</p>"


def test_it_renders_every_time_when_the_cache_keeps_nothing(settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    render = Renders()

    page_cache.cached_fragment("region", seconds=3600, render=render)
    page_cache.cached_fragment("region", seconds=3600, render=render)

    assert render.count == 2


def test_it_keeps_variants_apart():
    render = Renders()

    one = page_cache.cached_fragment("region", seconds=3600, variant="a", render=render)
    two = page_cache.cached_fragment("region", seconds=3600, variant="b", render=render)

    assert one != two


def test_a_unit_saved_meanwhile_shows_on_the_next_overview_poll(viewer):
    seed(unit(1, name="first-unit"))
    mark_polled()
    assert "first-unit" in viewer.get("/", HTTP_HX_REQUEST="true").text

    seed(unit(2, name="second-unit"))

    assert "second-unit" in viewer.get("/", HTTP_HX_REQUEST="true").text


def test_each_user_gets_their_own_name_and_csrf_token_around_the_shared_region(viewer, operator):
    seed(unit(1, name="busy-one"))
    mark_polled()

    vera = viewer.get("/").text
    otto = operator.get("/").text

    assert "busy-one" in vera and "busy-one" in otto
    assert "Log out vera" in vera and "vera" not in otto
    assert "Log out otto" in otto
    assert CSRF.search(vera).group(1) != CSRF.search(otto).group(1)
    assert viewer.cookies["csrftoken"].value != operator.cookies["csrftoken"].value
