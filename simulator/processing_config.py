"""The built-in processing configurations as `processingMCP` XML documents."""

from __future__ import annotations

from xml.sax.saxutils import escape

from simulator.workflow_data import DECISION_POINTS, DecisionPoint

BUILTIN_NAMES = ("automated", "default")


def _answers(name: str) -> list[DecisionPoint]:
    if name == "default":
        return [point for point in DECISION_POINTS if point.answered_by_default_config]
    # "automated" answers everything except the transfer approval.
    return [point for point in DECISION_POINTS if point.group != "Approve transfer"]


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
            f"      <goToChain>{escape(value)}</goToChain>",
            "    </preconfiguredChoice>",
        ]
    lines += ["  </preconfiguredChoices>", "</processingMCP>", ""]
    return "\n".join(lines)
