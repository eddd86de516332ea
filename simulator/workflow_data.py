"""Facts about the real workflow service that the simulator replays.

Microservice groups in order with their job names, the decision points on
the standard path, and the off-path groups (failure, rejection, backlog).
Names are the English labels the real service stores; labels that named a
third-party product are replaced by neutral words.
"""

from __future__ import annotations

from dataclasses import dataclass

GroupJobs = tuple[str, tuple[str, ...]]

TRANSFER_SEQUENCE: tuple[GroupJobs, ...] = (
    # The approval group comes first; its job depends on the transfer type,
    # see APPROVALS below.
    (
        "Verify transfer compliance",
        (
            "Move to processing directory",
            "Set transfer type: Standard",
            "Remove hidden files and directories",
            "Remove unneeded files",
            "Determine if research data conversion needs to happen",
            "Attempt restructure for compliance",
            "Verify transfer compliance",
            "Verify mets_structmap.xml compliance",
        ),
    ),
    ("Rename with transfer UUID", ("Rename with transfer UUID",)),
    ("Include default Transfer processingMCP.xml", ("Include default Transfer processingMCP.xml",)),
    (
        "Assign file UUIDs and checksums",
        (
            "Assign UUIDs to directories?",
            "Assign UUIDs to directories",
            "Assign file UUIDs to objects",
            "Assign checksums and file sizes to objects",
        ),
    ),
    ("Reformat metadata files", ("Process transfer JSON metadata",)),
    ("Verify transfer checksums", ("Verify metadata directory checksums",)),
    (
        "Scan for viruses",
        (
            "Do you want to scan for viruses in directories?",
            "Scan for viruses in directories",
        ),
    ),
    (
        "Generate transfer structure report",
        (
            "Move to generate transfer tree",
            "Move to processing directory",
            "Generate transfer structure report",
        ),
    ),
    (
        "Change transfer filenames",
        ("Change object and directory filenames", "Change transfer name"),
    ),
    (
        "Identify file format",
        (
            "Move to select file ID tool",
            "Do you want to perform file format identification?",
            "Determine which files to identify",
            "Identify file format",
        ),
    ),
    ("Extract packages", ("Move to extract packages", "Determine if transfer contains packages")),
    (
        "Characterize and extract metadata",
        (
            "Store file modification dates",
            "Load rights",
            "Characterize and extract metadata",
            "Load labels from metadata/file_labels.csv",
            "Load PREMIS events from metadata/premis.xml",
        ),
    ),
    ("Validation", ("Validate formats",)),
    ("Parse external files", ("Determine if research data METS XML needs to be parsed",)),
    ("Validation", ("Perform policy checks on originals?",)),
    (
        "Examine contents",
        ("Move to examine contents", "Examine contents?", "Check for specialized processing"),
    ),
    ("Generate METS.xml document", ("Generate METS.xml document",)),
    (
        "Complete transfer",
        (
            "Parse external METS",
            "Create transfer metadata XML",
            "Move to SIP creation directory for completed transfers",
        ),
    ),
    # Up to the decision; what follows depends on the answer (SIP_CREATION_JOBS,
    # BACKLOG_JOBS, REJECT_TRANSFER).
    (
        "Create SIP from Transfer",
        ("Check transfer directory for objects", "Load options to create SIPs", "Create SIP(s)"),
    ),
)

SIP_CREATION_JOBS: GroupJobs = (
    "Create SIP from Transfer",
    (
        "Move to processing directory",
        "Serialize Dublin Core metadata to disk",
        "Create SIP from transfer objects",
    ),
)

BACKLOG_JOBS: GroupJobs = (
    "Create SIP from Transfer",
    (
        "Add README file",
        "Serialize Dublin Core metadata to disk",
        "Move transfer to backlog",
        "Create placement in backlog PREMIS events",
    ),
)

INGEST_SEQUENCE: tuple[GroupJobs, ...] = (
    ("Verify SIP compliance", ("Move to processing directory", "Verify SIP compliance")),
    (
        "Rename SIP directory with SIP UUID",
        (
            "Check if SIP is from Maildir Transfer",
            "Rename SIP directory with SIP UUID",
        ),
    ),
    ("Include default SIP processingMCP.xml", ("Include default SIP processingMCP.xml",)),
    ("Remove cache files", ("Remove cache files",)),
    ("Change SIP filenames", ("Change SIP name", "Load Dublin Core metadata from disk")),
    (
        "Normalize",
        (
            "Identify manually normalized files",
            "Check for Service directory",
            "Check for Access directory",
            "Set remove preservation and access normalized files to renormalize link.",
            "Grant normalization options for no pre-existing DIP",
            "Move to select file ID tool",
            "Do you want to perform file format identification?",
            "Identify file format",
            "Resume after normalization file identification tool selected.",
            "Normalize",
            "Move to processing directory",
            "Create DIP directory",
            "Create thumbnails directory",
            "Set normalize path",
            "Choose thumbnail mode",
            "Return to normalization step",
            "Normalize for thumbnails",
            "Normalize for access",
            "Validate access derivatives",
            "Normalize for preservation",
            "Validate preservation derivatives",
            "Remove files without linking information (failed normalization artifacts etc.)",
            "Normalization report",
            "Move to approve normalization directory",
            "Approve normalization",
            "Move to processing directory",
        ),
    ),
    ("Process manually normalized files", ("Check for manual normalized files",)),
    (
        "Policy checks for derivatives",
        (
            "Perform policy checks on preservation derivatives?",
            "Perform policy checks on access derivatives?",
        ),
    ),
    ("Add final metadata", ("Move to metadata reminder", "Reminder: add metadata if desired")),
    ("Transcribe SIP contents", ("Transcribe SIP contents?",)),
    (
        "Process submission documentation",
        (
            "Copy transfer submission documentation",
            "Check for submission documentation",
            "Move submission documentation into objects directory",
            "Assign file UUIDs to submission documentation",
            "Assign checksums and file sizes to submissionDocumentation",
            "Change file and directory names in submission documentation",
            "Do you want to scan for viruses in submission documentation?",
            "Scan for viruses in submission documentation",
            "Do you want to perform file format identification?",
            "Identify file format",
            "Characterize and extract metadata on submission documentation",
            "Remove files without linking information (failed normalization artifacts etc.)",
        ),
    ),
    (
        "Process metadata directory",
        (
            "Copy transfers metadata and logs",
            "Process JSON metadata",
            "Move metadata to objects directory",
            "Assign file UUIDs to metadata",
            "Assign checksums and file sizes to metadata",
            "Change file and directory names in metadata",
            "Do you want to scan for viruses in metadata?",
            "Scan for viruses in metadata",
            "Identify file format of metadata files",
            "Characterize and extract metadata on metadata files",
            "Load persistent identifiers from external file",
            "Remove empty manual normalization directories",
        ),
    ),
    ("Bind PIDs", ("Bind PIDs?",)),
    ("Generate AIP METS", ("Document empty directories?", "Generate METS.xml document")),
    ("Add README file", ("Add README file",)),
    ("Prepare AIP", ("Check if DIP should be generated",)),
    (
        "Prepare DIP",
        (
            "Copy thumbnails to DIP directory",
            "Copy METS to DIP directory",
            "Copy preconfigured choice XML to DIP directory",
            "Copy OCR data to DIP directory",
            "Pre-processing for DIP generation",
            "Generate DIP",
        ),
    ),
    (
        "Prepare AIP",
        (
            "Prepare AIP",
            "Move to compressionAIPDecisions directory",
            "Select compression algorithm",
            "Select compression level",
            "Compress AIP",
            "Copy submission documentation",
            "Set bag file permissions",
            "Check if AIP is a file or directory",
            "Remove bagged files",
        ),
    ),
    (
        "Store AIP",
        (
            "Move to the store AIP approval directory",
            "Store AIP",
            "Retrieve AIP Storage Locations",
            "Store AIP location",
            "Move to processing directory",
            "Verify AIP",
            "Store the AIP",
            "Index AIP",
            "Clean up after storing AIP",
            "Remove the processing directory",
        ),
    ),
)

# The DIP chain starts once "Generate DIP" is done; its jobs share the SIP UUID.
DIP_SEQUENCE: tuple[GroupJobs, ...] = (
    (
        "Upload DIP",
        (
            "Upload DIP",
            "Store DIP?",
            "Retrieve DIP Storage Locations",
            "Store DIP location",
            "Store DIP",
            "Remove the processing directory",
        ),
    ),
)

FAILED_TRANSFER: GroupJobs = (
    "Failed transfer",
    ("Email fail report", "Move to the failed directory"),
)
FAILED_SIP: GroupJobs = ("Failed SIP", ("Email fail report", "Move to the failed directory"))
REJECT_TRANSFER: GroupJobs = ("Reject transfer", ("Move to the rejected directory",))
# A partial (objects or metadata-only) reingest started from the workflow side waits here
# until `/api/ingest/reingest/approve` answers it.
REINGEST_APPROVAL: GroupJobs = ("Reingest AIP", ("Approve AIP reingest",))
REINGEST_APPROVAL_JOB = "Approve AIP reingest"

# Jobs whose outcome the engine acts on.
CREATE_SIPS_DECISION = "Create SIP(s)"
GENERATE_DIP_JOB = "Generate DIP"
CREATE_SIP_JOB = "Create SIP from transfer objects"
MOVE_TO_BACKLOG_JOB = "Move transfer to backlog"
STORE_AIP_JOB = "Store the AIP"
STORE_DIP_JOB = "Store DIP"
REMOVE_PROCESSING_DIRECTORY_JOB = "Remove the processing directory"
RENAME_WITH_UUID_JOB = "Rename with transfer UUID"
MOVE_TO_SIP_CREATION_JOB = "Move to SIP creation directory for completed transfers"

# Jobs that run one task per file of the unit: (group, job).
FILE_LEVEL_JOBS: frozenset[tuple[str, str]] = frozenset(
    {
        ("Assign file UUIDs and checksums", "Assign file UUIDs to objects"),
        ("Assign file UUIDs and checksums", "Assign checksums and file sizes to objects"),
        ("Identify file format", "Identify file format"),
        ("Characterize and extract metadata", "Characterize and extract metadata"),
        ("Validation", "Validate formats"),
        ("Normalize", "Identify file format"),
        ("Normalize", "Normalize for thumbnails"),
        ("Normalize", "Normalize for access"),
        ("Normalize", "Validate access derivatives"),
        ("Normalize", "Normalize for preservation"),
        ("Normalize", "Validate preservation derivatives"),
    }
)

# Non-zero exit codes that only steer the workflow; the job still completes.
BRANCH_EXIT_CODES: dict[str, int] = {
    "Determine if transfer contains packages": 1,
    "Check transfer directory for objects": 179,
}


@dataclass(frozen=True)
class Approval:
    group: str
    job: str
    active_directory: str  # under watchedDirectories/activeTransfers/
    listed_as_unapproved: bool  # the unapproved list only knows some approval jobs


APPROVALS: dict[str, Approval] = {
    "standard": Approval("Approve transfer", "Approve standard transfer", "standardTransfer", True),
    "zipfile": Approval("Approve transfer", "Approve zipped transfer", "zippedDirectory", True),
    "unzipped bag": Approval("Approve transfer", "Approve bagit transfer", "baggitDirectory", True),
    "zipped bag": Approval(
        "Approve transfer", "Approve zipped bagit transfer", "baggitZippedDirectory", True
    ),
    "repository_system": Approval(
        "Approve transfer", "Approve repository system transfer", "repositorySystem", True
    ),
    "maildir": Approval("Approve transfer", "Approve maildir transfer", "maildir", False),
    "records_system": Approval(
        "Records system transfer", "Approve records system transfer", "recordsSystem", False
    ),
    "research_data": Approval(
        "Approve research data transfer", "Approve research data transfer", "researchData", False
    ),
}
TRANSFER_TYPES: tuple[str, ...] = tuple(APPROVALS)


@dataclass(frozen=True)
class DecisionPoint:
    group: str
    job: str
    link_id: str
    choices: tuple[tuple[str, str], ...]  # (label, value posted by the real UI)
    answered_by_default_config: bool
    standard_choice: int = 0  # index of the answer on the standard path


DEFAULT_AIP_LOCATION = "/api/v2/location/default/AS/"
DEFAULT_DIP_LOCATION = "/api/v2/location/default/DS/"

DECISION_POINTS: tuple[DecisionPoint, ...] = (
    DecisionPoint(
        "Approve transfer",
        "Approve standard transfer",
        "0c94e6b5-4714-4bec-82c8-e187e0c04d77",
        (
            ("Approve transfer", "6953950b-c101-4f4c-a0c3-0cd0684afe5e"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
        False,
    ),
    # The other transfer types' approvals (the real links and chains; the jobs that named
    # a product carry a neutral name here).
    DecisionPoint(
        "Approve transfer",
        "Approve zipped transfer",
        "44e0b981-78d2-4403-8233-05038b3cc603",
        (
            ("Approve transfer", "f3caceff-5ad5-4bad-b98c-e73f8cd03450"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
        False,
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve bagit transfer",
        "f6bcc82a-d629-4a78-8643-bf6e3cb39fe6",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "c75ef451-2040-4511-95ac-3baa0f019b48"),
        ),
        False,
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve zipped bagit transfer",
        "15402367-2d3f-475e-b251-55532347a3c2",
        (
            ("Approve transfer", "167dc382-4ab1-4051-8e22-e7f1c1bf3e6f"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
        False,
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve repository system transfer",
        "b963a646-0569-43c4-89a2-e3b814c5c08e",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "1cb2ef0e-afe8-45b5-8d8f-a1e120f06605"),
        ),
        False,
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve maildir transfer",
        "998044bb-6260-452f-a742-cfb19e80125b",
        (
            ("Approve transfer", "d381cf76-9313-415f-98a1-55c91e4d78e0"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
        False,
    ),
    DecisionPoint(
        "Records system transfer",
        "Approve records system transfer",
        "8db10a7b-924f-4561-87b4-cb6078c65aab",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "e4a59e3e-3dba-4eb5-9cf1-c1fb3ae61fa9"),
        ),
        False,
    ),
    DecisionPoint(
        "Approve research data transfer",
        "Approve research data transfer",
        "246943e4-d203-48e1-ac84-4865520e7c30",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve research data transfer", "10c00bc8-8fc2-419f-b593-cf5518695186"),
        ),
        False,
    ),
    DecisionPoint(
        "Reingest AIP",
        REINGEST_APPROVAL_JOB,
        "9520386f-bb6d-4fb9-a6b6-5845ef39375f",
        (
            ("Approve AIP reingest", "260ef4ea-f87d-4acf-830d-d0de41e6d2af"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
        False,
    ),
    DecisionPoint(
        "Assign file UUIDs and checksums",
        "Assign UUIDs to directories?",
        "bd899573-694e-4d33-8c9b-df0af802437d",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
        True,
    ),
    DecisionPoint(
        "Scan for viruses",
        "Do you want to scan for viruses in directories?",
        "7e81f94e-6441-4430-a12d-76df09181b66",
        (
            ("Yes", "97be337c-ff27-4869-bf63-ef1abc9df15d"),
            ("No", "77355172-b437-4324-9dcc-e2607ad27cb1"),
        ),
        True,
    ),
    DecisionPoint(
        "Generate transfer structure report",
        "Generate transfer structure report",
        "56eebd45-5600-4768-a8c2-ec0114555a3d",
        (
            ("Yes", "df54fec1-dae1-4ea6-8d17-a839ee7ac4a7"),
            ("No", "e9eaef1e-c2e0-4e3b-b942-bfb537162795"),
        ),
        True,
    ),
    DecisionPoint(
        "Identify file format",
        "Do you want to perform file format identification?",
        "f09847c2-ee51-429a-9478-a860477f6b8d",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
        False,
    ),
    DecisionPoint(
        "Validation",
        "Perform policy checks on originals?",
        "70fc7040-d4fb-4d19-a0e6-792387ca1006",
        (
            ("Yes", "c611a6ff-dfdb-46d1-b390-f366a6ea6f66"),
            ("No", "3e891cc4-39d2-4989-a001-5107a009a223"),
        ),
        True,
    ),
    DecisionPoint(
        "Examine contents",
        "Examine contents?",
        "accea2bf-ba74-4a3a-bb97-614775c74459",
        (
            ("Examine contents", "06f03bb3-121d-4c85-bec7-abbc5320a409"),
            ("Skip examine contents", "e0a39199-c62a-4a2f-98de-e9d1116460a8"),
        ),
        False,
    ),
    DecisionPoint(
        "Create SIP from Transfer",
        "Create SIP(s)",
        "bb194013-597c-4e4a-8493-b36d190f8717",
        (
            ("Create single SIP and continue processing", "61cfa825-120e-4b17-83e6-51a42b67d969"),
            ("Send to backlog", "7065d256-2f47-4b7d-baec-2c4699626121"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
        False,
    ),
    DecisionPoint(
        "Normalize",
        "Do you want to perform file format identification?",
        "7a024896-c4f7-4808-a240-44c87c762bc5",
        (
            ("Yes", "0"),
            ("No, use existing data", "1"),
        ),
        True,
    ),
    DecisionPoint(
        "Normalize",
        "Normalize",
        "cb8e5706-e73f-472f-ad9b-d1236af8095f",
        (
            ("Normalize for preservation and access", "b93cecd4-71f2-4e28-bc39-d32fd62c5a94"),
            ("Normalize for preservation", "612e3609-ce9a-4df6-a9a3-63d634d2d934"),
            ("Normalize for access", "fb7a326e-1e50-4b48-91b9-4917ff8d0ae8"),
            ("Normalize service files for access", "e600b56d-1a43-4031-9d7c-f64f123e5662"),
            ("Normalize manually", "c34bd22a-d077-4180-bf58-01db35bdb644"),
            ("Do not normalize", "89cb80dd-0636-464f-930d-57b61e3928b2"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
        False,
    ),
    DecisionPoint(
        "Normalize",
        "Choose thumbnail mode",
        "498f7a6d-1b8c-431a-aa5d-83f14f3c5e65",
        (
            ("Yes", "0"),
            ("Yes, without default icons", "1"),
            ("No", "2"),
        ),
        True,
    ),
    DecisionPoint(
        "Normalize",
        "Approve normalization",
        "de909a42-c5b5-46e1-9985-c031b50e9d30",
        (
            ("Yes", "1e0df175-d56d-450d-8bee-7df1dc7ae815"),
            ("Redo", "cbe9b4a3-e4e6-4a32-8d7c-3adfc409cb6f"),
            ("Reject", "169a5448-c756-4705-a920-737de6b8d595"),
        ),
        False,
    ),
    DecisionPoint(
        "Policy checks for derivatives",
        "Perform policy checks on preservation derivatives?",
        "153c5f41-3cfb-47ba-9150-2dd44ebc27df",
        (
            ("Yes", "3a55f688-eca3-4ebc-a012-4ce68290e7b0"),
            ("No", "b7ce05f0-9d94-4b3e-86cc-d4b2c6dba546"),
        ),
        True,
    ),
    DecisionPoint(
        "Policy checks for derivatives",
        "Perform policy checks on access derivatives?",
        "8ce07e94-6130-4987-96f0-2399ad45c5c2",
        (
            ("Yes", "d9760427-b488-4381-832a-de10106de6fe"),
            ("No", "76befd52-14c3-44f9-838f-15a4e01624b0"),
        ),
        True,
    ),
    DecisionPoint(
        "Add final metadata",
        "Reminder: add metadata if desired",
        "eeb23509-57e2-4529-8857-9d62525db048",
        (("Continue", "5727faac-88af-40e8-8c10-268644b0142d"),),
        False,
    ),
    DecisionPoint(
        "Transcribe SIP contents",
        "Transcribe SIP contents?",
        "82ee9ad2-2c74-4c7c-853e-e4eaf68fc8b6",
        (
            ("Yes", "35151db8-3a11-4b49-8865-f6697ef0ac75"),
            ("No", "0a24787c-00e3-4710-b324-90e792bfb484"),
        ),
        False,
    ),
    DecisionPoint(
        "Process submission documentation",
        "Do you want to scan for viruses in submission documentation?",
        "97a5ddc0-d4e0-43ac-a571-9722405a0a9b",
        (
            ("Yes", "3e8c0c39-3f30-4c9b-a449-85eef1b2a458"),
            ("No", "7f5244fe-590b-4e38-beaf-0cf1ccb9e71b"),
        ),
        True,
    ),
    DecisionPoint(
        "Process submission documentation",
        "Do you want to perform file format identification?",
        "087d27be-c719-47d8-9bbb-9a7d8b609c44",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
        True,
    ),
    DecisionPoint(
        "Process metadata directory",
        "Do you want to scan for viruses in metadata?",
        "856d2d65-cd25-49fa-8da9-cabb78292894",
        (
            ("Yes", "6e431096-c403-4cbf-a59a-a26e86be54a8"),
            ("No", "63767e4b-9ce8-4fe2-8724-65cc1f763de0"),
        ),
        True,
    ),
    DecisionPoint(
        "Bind PIDs",
        "Bind PIDs?",
        "a2ba5278-459a-4638-92d9-38eb1588717d",
        (
            ("Yes", "8f9dceb5-b978-43e0-a364-8b317a3ac43b"),
            ("No", "44a7c397-8187-4fd2-b8f7-c61737c4df49"),
        ),
        True,
        standard_choice=1,
    ),
    DecisionPoint(
        "Generate AIP METS",
        "Document empty directories?",
        "d0dfa5fc-e3c2-4638-9eda-f96eea1070e0",
        (
            ("Yes", "29881c21-3548-454a-9637-ebc5fd46aee0"),
            ("No", "65273f18-5b4e-4944-af4f-09be175a88e8"),
        ),
        True,
    ),
    DecisionPoint(
        "Prepare AIP",
        "Select compression algorithm",
        "01d64f58-8295-4b7b-9cab-8f1b153a504f",
        (
            ("7z using bzip2", "0"),
            ("7z using lzma", "1"),
            ("7z without compression", "2"),
            ("Gzipped tar", "3"),
            ("Parallel bzip2", "4"),
            ("Uncompressed", "5"),
        ),
        True,
    ),
    DecisionPoint(
        "Prepare AIP",
        "Select compression level",
        "01c651cb-c174-4ba4-b985-1d87a44d6754",
        (
            ("1 - fastest compression", "0"),
            ("3 - fast compression", "1"),
            ("5 - normal compression", "2"),
            ("7 - maximum compression", "3"),
            ("9 - ultra compression", "4"),
        ),
        True,
    ),
    DecisionPoint(
        "Store AIP",
        "Store AIP",
        "2d32235c-02d4-4686-88a6-96f4d6c7b1c3",
        (
            ("Yes", "9efab23c-31dc-4cbd-a39d-bb1665460cbe"),
            ("Reject AIP", "433f4e6b-1ef4-49f8-b1e4-49693791a806"),
        ),
        False,
    ),
    DecisionPoint(
        "Store AIP",
        "Store AIP location",
        "b320ce81-9982-408a-9502-097d0daa48fa",
        (("Default Location", DEFAULT_AIP_LOCATION),),
        False,
    ),
    DecisionPoint(
        "Upload DIP",
        "Upload DIP",
        "92879a29-45bf-4f0b-ac43-e64474f0f2f9",
        (
            ("Upload DIP to the access system", "0fe9842f-9519-4067-a691-8a363132ae24"),
            (
                "Upload DIP to the archival description system",
                "3572f844-5e69-4000-a24b-4e32d3487f82",
            ),
            ("Upload DIP to the digital collection system", "526eded3-2280-4f10-ac86-eff6c464cc81"),
            ("Do not upload DIP", "6eb8ebe7-fab3-4e4c-b9d7-14de17625baa"),
        ),
        False,
        standard_choice=3,
    ),
    DecisionPoint(
        "Upload DIP",
        "Store DIP?",
        "5e58066d-e113-4383-b20b-f301ed4d751c",
        (
            ("Store DIP", "8d29eb3d-a8a8-4347-806e-3d8227ed44a1"),
            ("Reject DIP", "4500f34e-f004-4ccf-8720-5c38d0be2254"),
        ),
        False,
    ),
    DecisionPoint(
        "Upload DIP",
        "Store DIP location",
        "cd844b6e-ab3c-4bc6-b34f-7103f88715de",
        (("Default Location", DEFAULT_DIP_LOCATION),),
        False,
    ),
)

DECISIONS_BY_STEP: dict[tuple[str, str], DecisionPoint] = {
    (point.group, point.job): point for point in DECISION_POINTS
}

# Levels of description known to the access system.
LEVELS_OF_DESCRIPTION: tuple[str, ...] = (
    "Fonds",
    "Sub-fonds",
    "Collection",
    "Series",
    "Sub-series",
    "File",
    "Item",
    "Part",
)

PROCESSING_CONFIGURATIONS: tuple[str, ...] = ("automated", "default")

# The back-dated history (`--history-days`) runs at a realistic pace: how much slower than
# the live demo's quick pace each group's jobs take. Normalization and characterization
# work file by file with external tools; packaging and storing move the whole AIP.
HISTORY_GROUP_SLOWDOWN: dict[str, float] = {
    "Assign file UUIDs and checksums": 2.0,
    "Verify transfer checksums": 3.0,
    "Scan for viruses": 4.0,
    "Extract packages": 3.0,
    "Identify file format": 3.0,
    "Characterize and extract metadata": 8.0,
    "Validation": 4.0,
    "Generate METS.xml document": 6.0,
    "Normalize": 15.0,
    "Process submission documentation": 2.0,
    "Process metadata directory": 2.0,
    "Generate AIP METS": 6.0,
    "Prepare DIP": 5.0,
    "Prepare AIP": 25.0,
    "Store AIP": 20.0,
    "Upload DIP": 5.0,
}

# Where history units fail, by job: the checks that find bad content (viruses, checksums,
# formats, compliance) and the tools that choke on it. Other jobs weigh 0.2.
HISTORY_FAILURE_WEIGHTS: dict[str, float] = {
    "Verify transfer compliance": 4.0,
    "Verify metadata directory checksums": 3.0,
    "Scan for viruses in directories": 5.0,
    "Determine if transfer contains packages": 2.0,
    "Identify file format": 2.0,
    "Characterize and extract metadata": 3.0,
    "Validate formats": 3.0,
    "Generate METS.xml document": 4.0,
    "Verify SIP compliance": 2.0,
    "Normalize for preservation": 4.0,
    "Normalize for access": 2.0,
    "Validate preservation derivatives": 2.0,
    "Scan for viruses in metadata": 1.0,
}

# Where an answer that leaves the planned path goes: (group, jobs) run after the decision.
REJECT_SIP: GroupJobs = ("Reject SIP", ("Move to the rejected directory",))
REJECT_AIP: GroupJobs = ("Reject AIP", ("Move to the rejected directory",))
REJECT_LABELS: frozenset[str] = frozenset(
    {"Reject transfer", "Reject SIP", "Reject", "Reject AIP", "Reject DIP"}
)
SEND_TO_BACKLOG_LABEL = "Send to backlog"
CREATE_SINGLE_SIP_LABEL = "Create single SIP and continue processing"
