"""A wall token opens the wall screen and nothing else: no page, no API, no action."""

from __future__ import annotations

import uuid
from urllib.parse import urlencode

import pytest
from django.test import Client
from django.urls import Resolver404, URLPattern, URLResolver, get_resolver, resolve
from django.utils.regex_helper import normalize

from dashboard.models import WallLink
from dashboard.services import wall_links
from tests.wall import seeding

pytestmark = pytest.mark.django_db

# The only URL that may answer differently when a wall token is around; with the wall
# cookie the token is swapped for, the wall itself too.
WALL_SCREEN = "dashboard:wall-screen"
WALL = "dashboard:wall"


@pytest.fixture(autouse=True)
def _pipelines(settings):
    seeding.use_pipelines(settings)


@pytest.fixture
def token() -> str:
    return wall_links.wall_link_create(name="Operations room").token


def _walk(patterns, prefix: str = ""):
    for entry in patterns:
        regex = entry.pattern.regex.pattern.removeprefix("^")
        if isinstance(entry, URLResolver):
            namespace = f"{entry.namespace}:" if entry.namespace else ""
            for path_regex, name in _walk(entry.url_patterns, prefix + regex):
                yield path_regex, namespace + name if name else name
        elif isinstance(entry, URLPattern):
            yield prefix + regex, entry.name or ""


def _sample(param: str, link_id: int) -> str:
    if "uuid" in param:
        return str(uuid.UUID(int=7))
    if param in {"pk", "id", "link_id", "object_id"} or param.endswith("_id"):
        return str(link_id)
    if param == "app_label":
        return "auth"
    if param == "url":
        return "anything/"
    return "sample"


def every_path(link_id: int) -> list[tuple[str, str]]:
    """One concrete path for every URL pattern in the project, with its name."""
    found = {}
    for path_regex, name in _walk(get_resolver().url_patterns):
        template, params = normalize(path_regex)[0]
        path = "/" + template % {p: _sample(p, link_id) for p in params}
        try:
            resolve(path)
        except Resolver404:
            continue
        found.setdefault(path, name)
    return sorted(found.items())


def outcome(response) -> tuple[int, str]:
    # Where a redirect goes, without its query: "?next=" repeats whatever was asked.
    return response.status_code, response.get("Location", "").split("?", 1)[0]


def wall_cookie(token: str) -> str:
    """The signed cookie `/wall/<token>/` sets."""
    return Client().get(f"/wall/{token}/").cookies["lookout_wall"].value


def carriers(token: str) -> dict[str, dict]:
    """The ways a client might present the token: in the address and cookies, as a
    credential header (separately: a header refused early could hide the others), or as
    the wall cookie it is swapped for."""
    return {
        "wall cookie": {"cookies": {"lookout_wall": wall_cookie(token)}},
        "query and cookies": {
            "query": {"token": token, "wall": token},
            "cookies": {"token": token, "wall_token": token, "sessionid": token},
        },
        "api token header": {"headers": {"Authorization": f"Token {token}"}},
    }


def grants_more(baseline: tuple[int, str], seen: tuple[int, str]) -> bool:
    # Refusing a credential it does not know (the API's 401/403) is not an opening.
    return seen != baseline and seen[0] not in (401, 403)


def request(method: str, path: str, *, query=None, cookies=None, headers=None):
    client = Client()
    client.raise_request_exception = False  # a broken page is not this test's subject
    for key, value in (cookies or {}).items():
        client.cookies[key] = value
    if query:
        path = f"{path}?{urlencode(query)}"
    return getattr(client, method)(path, headers=headers or {})


def test_the_url_sweep_covers_pages_api_actions_and_admin(token):
    paths = dict(every_path(link_id=1))

    assert "/api/v1/units/" in paths
    assert "/admin/" in paths
    assert "/wall/links/create/" in paths
    assert any(name == WALL_SCREEN for name in paths.values())
    assert len(paths) > 20


@pytest.mark.parametrize("method", ["get", "post"])
def test_no_url_opens_further_when_the_token_is_presented(token, method):
    link = WallLink.objects.get()
    differences = []
    for path, name in every_path(link_id=link.pk):
        if name == WALL_SCREEN:
            continue
        baseline = outcome(request(method, path))
        for carrier, parts in carriers(token).items():
            if carrier == "wall cookie" and name == WALL and method == "get":
                continue  # what it is for
            seen = outcome(request(method, path, **parts))
            if grants_more(baseline, seen):
                differences.append((method, path, carrier, baseline, seen))

    assert differences == []
    assert WallLink.objects.get().active  # no action went through either


@pytest.mark.parametrize(
    "path",
    ["/", "/units/", "/api/v1/units/", "/api/v1/waiting/", "/wall/", "/wall/links/", "/admin/"],
)
def test_the_token_as_a_query_parameter_opens_no_other_page(token, path):
    response = Client().get(path, {"token": token})

    assert response.status_code in (302, 401, 403, 404)
    if response.status_code == 302:
        assert "login" in response["Location"]


@pytest.mark.parametrize("scheme", ["Token", "Bearer", "ApiKey wall:"])
def test_the_token_is_not_an_api_credential(token, scheme):
    separator = "" if scheme.endswith(":") else " "
    response = Client().get(
        "/api/v1/units/", headers={"Authorization": f"{scheme}{separator}{token}"}
    )

    assert response.status_code in (401, 403)


def test_the_token_as_a_cookie_opens_nothing(token):
    client = Client()
    client.cookies["sessionid"] = token
    client.cookies["token"] = token

    assert client.get("/").status_code == 302
    assert client.get("/api/v1/units/").status_code in (401, 403)


def test_opening_the_wall_does_not_log_the_browser_in(token):
    client = Client()
    assert client.get(f"/wall/{token}/").status_code == 302
    assert client.get("/wall/").status_code == 200  # the wall cookie opens the wall...

    assert client.get("/").status_code == 302  # ...and nothing else
    assert client.get("/wall/links/").status_code == 302
    assert client.get("/api/v1/units/").status_code in (401, 403)
    assert "sessionid" not in client.cookies


def test_actions_refuse_the_token(token):
    link = WallLink.objects.get()
    client = Client()
    client.get(f"/wall/{token}/")

    created = client.post(f"/wall/links/create/?token={token}", {"name": "sneaky"})
    revoked = client.post(f"/wall/links/{link.pk}/revoke/?token={token}")

    assert created.status_code == revoked.status_code == 302
    assert "login" in created["Location"]
    assert list(WallLink.objects.values_list("name", flat=True)) == ["Operations room"]
    assert WallLink.objects.get().active


def test_the_token_only_works_in_its_own_place(token):
    # Under another prefix it is just an unknown path.
    assert Client().get(f"/{token}/").status_code in (302, 404)
    assert Client().get(f"/wall/links/{token}/").status_code == 404
