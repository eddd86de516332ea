"""The microservice groups of the standard workflow, in the order a unit runs them.

Factual data taken from the workflow definition (transfer approved, one SIP, normalised
for preservation and access, the DIP chain): pages list groups in this order. A group
not listed here (an alternative or failure path) comes after these, by name.
"""

from __future__ import annotations

TRANSFER_GROUPS = (
    "Approve transfer",
    "Verify transfer compliance",
    "Rename with transfer UUID",
    "Include default Transfer processingMCP.xml",
    "Assign file UUIDs and checksums",
    "Reformat metadata files",
    "Verify transfer checksums",
    "Scan for viruses",
    "Generate transfer structure report",
    "Change transfer filenames",
    "Identify file format",
    "Extract packages",
    "Characterize and extract metadata",
    "Validation",
    "Parse external files",
    "Examine contents",
    "Generate METS.xml document",
    "Complete transfer",
    "Create SIP from Transfer",
)

INGEST_GROUPS = (
    "Verify SIP compliance",
    "Rename SIP directory with SIP UUID",
    "Include default SIP processingMCP.xml",
    "Remove cache files",
    "Change SIP filenames",
    "Normalize",
    "Process manually normalized files",
    "Policy checks for derivatives",
    "Add final metadata",
    "Transcribe SIP contents",
    "Process submission documentation",
    "Process metadata directory",
    "Bind PIDs",
    "Generate AIP METS",
    "Add README file",
    "Prepare AIP",
    "Prepare DIP",
    "Store AIP",
)

DIP_GROUPS = ("Upload DIP",)

WORKFLOW_GROUPS = TRANSFER_GROUPS + INGEST_GROUPS + DIP_GROUPS
_POSITION = {name: index for index, name in enumerate(WORKFLOW_GROUPS)}


def group_sort_key(group: str) -> tuple[int, str]:
    """Workflow position first; groups off the standard path after them, by name."""
    return (_POSITION.get(group, len(_POSITION)), group)
