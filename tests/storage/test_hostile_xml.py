"""XML from upstream is parsed through defusedxml: a billion-laughs document and an
external entity are refused and logged, never expanded, fetched or answered with a 500."""

from __future__ import annotations

import logging

import pytest
from django.urls import reverse

from dashboard.clients.base import MalformedPayload
from dashboard.clients.workflow import ProcessingConfiguration
from dashboard.selectors.storage import pointer_summary
from dashboard.services import storage as storage_services
from tests.storage.fakes import package_uuid

BILLION_LAUGHS = """<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<{root}>&lol9;</{root}>"""

EXTERNAL_ENTITY = """<?xml version="1.0"?>
<!DOCTYPE r [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<{root}>&secret;</{root}>"""

HOSTILE = {
    "billion laughs": BILLION_LAUGHS,
    "external entity": EXTERNAL_ENTITY,
}


@pytest.mark.parametrize("sample", HOSTILE)
def test_a_processing_configuration_with_entities_is_refused_and_logged(sample, caplog):
    xml = HOSTILE[sample].format(root="processingMCP")

    with (
        caplog.at_level(logging.WARNING, logger="dashboard.lib.safe_xml"),
        pytest.raises(MalformedPayload, match="refused"),
    ):
        ProcessingConfiguration.from_api("automated", xml)

    assert "Refused XML from processing configuration 'automated'" in caplog.text


@pytest.mark.parametrize("sample", HOSTILE)
def test_a_pointer_file_with_entities_is_refused_and_logged_not_expanded(sample, caplog):
    xml = HOSTILE[sample].format(root="mets")

    with caplog.at_level(logging.WARNING, logger="dashboard.lib.safe_xml"):
        summary = pointer_summary(xml)

    assert "refused" in summary.parse_error
    assert summary.facts == ()
    assert summary.pretty == xml  # shown as sent, never expanded
    assert "root:" not in summary.pretty
    assert "Refused XML from a pointer file" in caplog.text


@pytest.mark.django_db
@pytest.mark.parametrize("sample", HOSTILE)
def test_the_package_page_shows_a_hostile_pointer_file_without_a_500(
    sample, client, polled, viewer, monkeypatch
):
    xml = HOSTILE[sample].format(root="mets")
    monkeypatch.setattr(polled, "get_pointer_file", lambda uuid: xml)
    storage_services.package_details_refresh(uuid=package_uuid(1), client=polled)
    client.force_login(viewer)

    response = client.get(reverse("dashboard:storage-package-detail", args=[package_uuid(1)]))

    assert response.status_code == 200
    body = response.content.decode()
    assert "refused" in body
    assert "lollollol" not in body


def test_an_ordinary_processing_configuration_still_parses():
    xml = (
        "<processingMCP><preconfiguredChoices><!-- Approve -->"
        "<preconfiguredChoice><appliesTo>a</appliesTo><goToChain>b</goToChain>"
        "</preconfiguredChoice></preconfiguredChoices></processingMCP>"
    )

    config = ProcessingConfiguration.from_api("default", xml)

    assert [(c.applies_to, c.go_to_chain, c.label) for c in config.choices] == [
        ("a", "b", "Approve")
    ]
