"""Contract tests: Lookout's workflow operations against the simulator over HTTP.

The real client and services talk to a running simulator; what they store must be what
the pages show (decisions in words, the validators' verdicts as given).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
import requests
from django.core.cache import cache

from dashboard.clients.workflow import WorkflowClient
from dashboard.lib.pipelines import PipelineConfig
from dashboard.selectors.processing_configs import processing_config_get, processing_config_names
from dashboard.services import processing_configs as config_services
from dashboard.services.processing_configs import processing_config_names_fetch
from tests.support.simulator_process import SimulatorProcess

pytestmark = [pytest.mark.integration, pytest.mark.django_db]
UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@pytest.fixture(scope="module")
def sim() -> Iterator[SimulatorProcess]:
    with SimulatorProcess(units=2, seed=7, speed=0) as process:
        yield process


@pytest.fixture
def client(sim: SimulatorProcess) -> WorkflowClient:
    return WorkflowClient(sim.workflow_url, sim.user, sim.key)


@pytest.mark.parametrize("name", ["default", "automated"])
def test_every_decision_of_a_built_in_configuration_is_in_words(client, name):
    cache.clear()
    config_services.processing_config_fetch(pipeline="default", name=name, client=client)

    stored = processing_config_get(pipeline="default", name=name)

    assert stored is not None and stored.fetched and not stored.error
    assert stored.decisions
    for decision in stored.decisions:
        assert not decision.question.startswith("Decision "), decision
        assert not UUID.match(decision.answer), decision
        assert decision.group, decision


def test_an_unknown_configuration_is_stored_as_missing(client):
    cache.clear()
    config_services.processing_config_fetch(pipeline="default", name="nightly", client=client)

    stored = processing_config_get(pipeline="default", name="nightly")

    assert stored is not None and stored.missing and stored.xml is None
    assert stored.error == 'No such processing config "nightly".'


SAMPLES = {
    "rights": (
        "file,basis,status,start_date\nobjects/a.tif,copyright,copyrighted,2001-02-03\n",
        "file,basis\nobjects/a.tif,whim\n",
        "Row 2: basis must be one of copyright, statute, license, donor, policy, other.",
    ),
    "media_manifest": (
        "Collection one,archivist@example.org\nTitle,Date Issued,File\nLetter,1921,a.mp4\n",
        "Collection one,archivist@example.org\nTitle,File\nLetter,a.mp4\n",
        "Missing required column(s): Date Issued.",
    ),
}


@pytest.mark.parametrize("validator", sorted(SAMPLES))
def test_csv_validation_records_each_validators_verdict_as_given(sim, settings, validator):
    from dashboard.services import csv_validation
    from tests.support.users import make_user

    settings.LOOKOUT_PIPELINES = [
        {
            "slug": "default",
            "name": "Sim",
            "url": sim.workflow_url,
            "user": sim.user,
            "key": sim.key,
        }
    ]
    user = make_user(f"csv-{validator}", "operator")
    valid, invalid, reason = SAMPLES[validator]

    good = csv_validation.csv_validate(
        user=user,
        pipeline="default",
        validator=validator,
        file_name="ok.csv",
        text=valid,
        idempotency_key=f"good-{validator}-" + "k" * 20,
    )
    bad = csv_validation.csv_validate(
        user=user,
        pipeline="default",
        validator=validator,
        file_name="bad.csv",
        text=invalid,
        idempotency_key=f"bad-{validator}-" + "k" * 20,
    )

    assert csv_validation.csv_verdict(good.entry) == csv_validation.Verdict(
        True, csv_validation.VALID_MESSAGE
    )
    assert csv_validation.csv_verdict(bad.entry) == csv_validation.Verdict(False, reason)


def test_processing_configuration_names_are_those_the_service_lists(sim, client):
    cache.clear()
    pipeline = PipelineConfig(
        slug="default",
        name="Default",
        url=sim.workflow_url,
        user=sim.user,
        key=sim.key,
        processing_configs=("other",),
    )
    first = processing_config_names_fetch(pipeline="default", client=client)
    listed = processing_config_names(pipeline=pipeline)
    requests.delete(
        f"{sim.workflow_url}/api/processing-configuration/automated/",
        headers=sim.auth_header,
        timeout=10,
    )
    processing_config_names_fetch(pipeline="default", client=client)
    after_deleting = processing_config_names(pipeline=pipeline)
    # The built-in comes back when asked for by name, as the real service's does.
    client.get_processing_configuration("automated")

    assert first["error"] == "" and listed == ("automated", "default")
    assert after_deleting == ("default",)
