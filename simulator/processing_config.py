"""The built-in processing configurations as `processingMCP` XML documents.

Each `goToChain` holds what real configuration files hold: the UUID of a chain, or of
a replacement choice (the dashboard posts those as an index, a file names them by
UUID), and a storage location URI for the "Store AIP/DIP location" decisions.
"""

from __future__ import annotations

from xml.sax.saxutils import escape

from simulator.ids import derived_uuid
from simulator.workflow_data import DECISION_POINTS, DecisionPoint

BUILTIN_NAMES = ("automated", "default")


def _answers(name: str) -> list[DecisionPoint]:
    if name == "default":
        return [point for point in DECISION_POINTS if point.answered_by_default_config]
    # "automated" answers everything except the transfer approval (and, as the real
    # file, the partial reingest approval, which only the reingest API answers).
    unanswered = ("Approve transfer", "Reingest AIP")
    return [point for point in DECISION_POINTS if point.group not in unanswered]


def go_to_chain(point: DecisionPoint, value: str) -> str:
    """A choice as a configuration file names it: a replacement index becomes its UUID."""
    return derived_uuid("replacement", point.link_id, value) if value.isdigit() else value


def builtin_config(name: str) -> str:
    """The XML of a built-in configuration; KeyError for other names."""
    if name not in BUILTIN_NAMES:
        raise KeyError(name)
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        "<processingMCP>",
        "  <preconfiguredChoices>",
    ]
    for point in _answers(name):
        label, value = point.choices[point.standard_choice]
        lines += [
            f"    <!-- {escape(point.job)}: {escape(label)} -->",
            "    <preconfiguredChoice>",
            f"      <appliesTo>{point.link_id}</appliesTo>",
            f"      <goToChain>{escape(go_to_chain(point, value))}</goToChain>",
            "    </preconfiguredChoice>",
        ]
    lines += ["  </preconfiguredChoices>", "</processingMCP>", ""]
    return "\n".join(lines)
