"""The storage pages read the database too: flushing the cache changes none of them."""

from __future__ import annotations

import re

import pytest
import time_machine
from django.core.cache import cache
from django.test import Client
from django.utils import timezone

from dashboard import tasks
from tests.storage.fakes import package_uuid

pytestmark = pytest.mark.django_db

CSRF_TOKEN = re.compile(r'(name="csrfmiddlewaretoken" value=|"x-csrftoken": )"[^"]+"')
PAGES = [
    "/storage/",
    "/storage/packages/",
    f"/storage/packages/{package_uuid(1)}/",
    "/api/v1/pipelines/",
    "/api/v1/spaces/",
    "/api/v1/locations/",
    "/api/v1/packages/",
    f"/api/v1/packages/{package_uuid(1)}/",
]


def _answers(client: Client) -> dict[str, str]:
    answers = {}
    for url in PAGES:
        response = client.get(url)
        assert response.status_code == 200, url
        answers[url] = CSRF_TOKEN.sub("", response.content.decode())
    return answers


def test_flushing_the_cache_changes_no_storage_page_or_api_answer(polled, viewer, monkeypatch):
    with time_machine.travel(timezone.now(), tick=False):
        assert tasks.fetch_package_details.run(package_uuid(1)) == "fetched"
        # Opening a page must not queue anything that would change the second look.
        monkeypatch.setattr(tasks, "package_details_enqueue", lambda uuid: False)
        client = Client()
        client.force_login(viewer)

        before = _answers(client)
        cache.clear()
        after = _answers(client)

    assert after == before
    assert "objects/report.pdf" in before[f"/storage/packages/{package_uuid(1)}/"]
