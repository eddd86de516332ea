"""Contract tests: Lookout's workflow operations against the simulator over HTTP.

The real client and services talk to a running simulator; what they store must be what
the pages show (decisions in words, the validators' verdicts as given).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from django.core.cache import cache

from dashboard.clients.workflow import WorkflowClient
from dashboard.selectors.processing_configs import processing_config_get
from dashboard.services import processing_configs as config_services
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
