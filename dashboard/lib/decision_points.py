"""The workflow's decision points: the question each asks and its choices, in words.

Data only, from a reading of the workflow definition of the 1.15-1.17 releases (the
English labels the service stores). The public API names a waiting unit's decision only
by its job (`microservice` in `/api/ingest/waiting`), and a processing configuration by
`appliesTo` (the decision's link) and `goToChain` (a choice's value); this table turns
both into words. A configuration file can name a replacement choice by a UUID instead of
its index; those are shown as the XML's own label, or as the value.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class DecisionPoint:
    group: str
    # The job that asks: the question, e.g. "Normalize" or "Store AIP location".
    job: str
    link_id: str
    kind: str
    # (label, value): value is a chain UUID, a replacement index, or a location URI.
    choices: tuple[tuple[str, str], ...]

    def choice_label(self, value: str) -> str | None:
        return next((label for label, v in self.choices if v == value), None)


DECISION_POINTS: tuple[DecisionPoint, ...] = (
    DecisionPoint(
        "Approve transfer",
        "Approve standard transfer",
        "0c94e6b5-4714-4bec-82c8-e187e0c04d77",
        "chain_choice",
        (
            ("Approve transfer", "6953950b-c101-4f4c-a0c3-0cd0684afe5e"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
    ),
    DecisionPoint(
        "Assign file UUIDs and checksums",
        "Assign UUIDs to directories?",
        "bd899573-694e-4d33-8c9b-df0af802437d",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
    ),
    DecisionPoint(
        "Scan for viruses",
        "Do you want to scan for viruses in directories?",
        "7e81f94e-6441-4430-a12d-76df09181b66",
        "chain_choice",
        (
            ("Yes", "97be337c-ff27-4869-bf63-ef1abc9df15d"),
            ("No", "77355172-b437-4324-9dcc-e2607ad27cb1"),
        ),
    ),
    DecisionPoint(
        "Generate transfer structure report",
        "Generate transfer structure report",
        "56eebd45-5600-4768-a8c2-ec0114555a3d",
        "chain_choice",
        (
            ("Yes", "df54fec1-dae1-4ea6-8d17-a839ee7ac4a7"),
            ("No", "e9eaef1e-c2e0-4e3b-b942-bfb537162795"),
        ),
    ),
    DecisionPoint(
        "Identify file format",
        "Do you want to perform file format identification?",
        "f09847c2-ee51-429a-9478-a860477f6b8d",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
    ),
    DecisionPoint(
        "Validation",
        "Perform policy checks on originals?",
        "70fc7040-d4fb-4d19-a0e6-792387ca1006",
        "chain_choice",
        (
            ("Yes", "c611a6ff-dfdb-46d1-b390-f366a6ea6f66"),
            ("No", "3e891cc4-39d2-4989-a001-5107a009a223"),
        ),
    ),
    DecisionPoint(
        "Examine contents",
        "Examine contents?",
        "accea2bf-ba74-4a3a-bb97-614775c74459",
        "chain_choice",
        (
            ("Examine contents", "06f03bb3-121d-4c85-bec7-abbc5320a409"),
            ("Skip examine contents", "e0a39199-c62a-4a2f-98de-e9d1116460a8"),
        ),
    ),
    DecisionPoint(
        "Create SIP from Transfer",
        "Create SIP(s)",
        "bb194013-597c-4e4a-8493-b36d190f8717",
        "chain_choice",
        (
            ("Create single SIP and continue processing", "61cfa825-120e-4b17-83e6-51a42b67d969"),
            ("Send to backlog", "7065d256-2f47-4b7d-baec-2c4699626121"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
    ),
    DecisionPoint(
        "Normalize",
        "Do you want to perform file format identification?",
        "7a024896-c4f7-4808-a240-44c87c762bc5",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No, use existing data", "1"),
        ),
    ),
    DecisionPoint(
        "Normalize",
        "Normalize",
        "cb8e5706-e73f-472f-ad9b-d1236af8095f",
        "chain_choice",
        (
            ("Normalize for preservation and access", "b93cecd4-71f2-4e28-bc39-d32fd62c5a94"),
            ("Normalize for preservation", "612e3609-ce9a-4df6-a9a3-63d634d2d934"),
            ("Normalize for access", "fb7a326e-1e50-4b48-91b9-4917ff8d0ae8"),
            ("Normalize service files for access", "e600b56d-1a43-4031-9d7c-f64f123e5662"),
            ("Normalize manually", "c34bd22a-d077-4180-bf58-01db35bdb644"),
            ("Do not normalize", "89cb80dd-0636-464f-930d-57b61e3928b2"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
    ),
    DecisionPoint(
        "Normalize",
        "Choose thumbnail mode",
        "498f7a6d-1b8c-431a-aa5d-83f14f3c5e65",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("Yes, without default icons", "1"),
            ("No", "2"),
        ),
    ),
    DecisionPoint(
        "Normalize",
        "Approve normalization",
        "de909a42-c5b5-46e1-9985-c031b50e9d30",
        "chain_choice",
        (
            ("Yes", "1e0df175-d56d-450d-8bee-7df1dc7ae815"),
            ("Redo", "cbe9b4a3-e4e6-4a32-8d7c-3adfc409cb6f"),
            ("Reject", "169a5448-c756-4705-a920-737de6b8d595"),
        ),
    ),
    DecisionPoint(
        "Policy checks for derivatives",
        "Perform policy checks on preservation derivatives?",
        "153c5f41-3cfb-47ba-9150-2dd44ebc27df",
        "chain_choice",
        (
            ("Yes", "3a55f688-eca3-4ebc-a012-4ce68290e7b0"),
            ("No", "b7ce05f0-9d94-4b3e-86cc-d4b2c6dba546"),
        ),
    ),
    DecisionPoint(
        "Policy checks for derivatives",
        "Perform policy checks on access derivatives?",
        "8ce07e94-6130-4987-96f0-2399ad45c5c2",
        "chain_choice",
        (
            ("Yes", "d9760427-b488-4381-832a-de10106de6fe"),
            ("No", "76befd52-14c3-44f9-838f-15a4e01624b0"),
        ),
    ),
    DecisionPoint(
        "Add final metadata",
        "Reminder: add metadata if desired",
        "eeb23509-57e2-4529-8857-9d62525db048",
        "chain_choice",
        (("Continue", "5727faac-88af-40e8-8c10-268644b0142d"),),
    ),
    DecisionPoint(
        "Transcribe SIP contents",
        "Transcribe SIP contents?",
        "82ee9ad2-2c74-4c7c-853e-e4eaf68fc8b6",
        "chain_choice",
        (
            ("Yes", "35151db8-3a11-4b49-8865-f6697ef0ac75"),
            ("No", "0a24787c-00e3-4710-b324-90e792bfb484"),
        ),
    ),
    DecisionPoint(
        "Process submission documentation",
        "Do you want to scan for viruses in submission documentation?",
        "97a5ddc0-d4e0-43ac-a571-9722405a0a9b",
        "chain_choice",
        (
            ("Yes", "3e8c0c39-3f30-4c9b-a449-85eef1b2a458"),
            ("No", "7f5244fe-590b-4e38-beaf-0cf1ccb9e71b"),
        ),
    ),
    DecisionPoint(
        "Process submission documentation",
        "Do you want to perform file format identification?",
        "087d27be-c719-47d8-9bbb-9a7d8b609c44",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
    ),
    DecisionPoint(
        "Process metadata directory",
        "Do you want to scan for viruses in metadata?",
        "856d2d65-cd25-49fa-8da9-cabb78292894",
        "chain_choice",
        (
            ("Yes", "6e431096-c403-4cbf-a59a-a26e86be54a8"),
            ("No", "63767e4b-9ce8-4fe2-8724-65cc1f763de0"),
        ),
    ),
    DecisionPoint(
        "Bind PIDs",
        "Bind PIDs?",
        "a2ba5278-459a-4638-92d9-38eb1588717d",
        "chain_choice",
        (
            ("Yes", "8f9dceb5-b978-43e0-a364-8b317a3ac43b"),
            ("No", "44a7c397-8187-4fd2-b8f7-c61737c4df49"),
        ),
    ),
    DecisionPoint(
        "Generate AIP METS",
        "Document empty directories?",
        "d0dfa5fc-e3c2-4638-9eda-f96eea1070e0",
        "chain_choice",
        (
            ("Yes", "29881c21-3548-454a-9637-ebc5fd46aee0"),
            ("No", "65273f18-5b4e-4944-af4f-09be175a88e8"),
        ),
    ),
    DecisionPoint(
        "Prepare AIP",
        "Select compression algorithm",
        "01d64f58-8295-4b7b-9cab-8f1b153a504f",
        "replacement_choice",
        (
            ("7z using bzip2", "0"),
            ("7z using lzma", "1"),
            ("7z without compression", "2"),
            ("Gzipped tar", "3"),
            ("Parallel bzip2", "4"),
            ("Uncompressed", "5"),
        ),
    ),
    DecisionPoint(
        "Prepare AIP",
        "Select compression level",
        "01c651cb-c174-4ba4-b985-1d87a44d6754",
        "replacement_choice",
        (
            ("1 - fastest compression", "0"),
            ("3 - fast compression", "1"),
            ("5 - normal compression", "2"),
            ("7 - maximum compression", "3"),
            ("9 - ultra compression", "4"),
        ),
    ),
    DecisionPoint(
        "Store AIP",
        "Store AIP",
        "2d32235c-02d4-4686-88a6-96f4d6c7b1c3",
        "chain_choice",
        (
            ("Yes", "9efab23c-31dc-4cbd-a39d-bb1665460cbe"),
            ("Reject AIP", "433f4e6b-1ef4-49f8-b1e4-49693791a806"),
        ),
    ),
    DecisionPoint(
        "Store AIP",
        "Store AIP location",
        "b320ce81-9982-408a-9502-097d0daa48fa",
        "storage_location_choice",
        (
            (
                '<one entry per Storage Service location of that purpose, plus "Default Location">',
                "<location resource URI, e.g. /api/v2/location/default/AS/>",
            ),
        ),
    ),
    DecisionPoint(
        "Upload DIP",
        "Upload DIP",
        "92879a29-45bf-4f0b-ac43-e64474f0f2f9",
        "chain_choice",
        (
            ("Upload DIP to AtoM", "0fe9842f-9519-4067-a691-8a363132ae24"),
            ("Upload DIP to ArchivesSpace", "3572f844-5e69-4000-a24b-4e32d3487f82"),
            ("Upload DIP to CONTENTdm", "526eded3-2280-4f10-ac86-eff6c464cc81"),
            ("Do not upload DIP", "6eb8ebe7-fab3-4e4c-b9d7-14de17625baa"),
        ),
    ),
    DecisionPoint(
        "Upload DIP",
        "Store DIP?",
        "5e58066d-e113-4383-b20b-f301ed4d751c",
        "chain_choice",
        (
            ("Store DIP", "8d29eb3d-a8a8-4347-806e-3d8227ed44a1"),
            ("Reject DIP", "4500f34e-f004-4ccf-8720-5c38d0be2254"),
        ),
    ),
    DecisionPoint(
        "Upload DIP",
        "Store DIP location",
        "cd844b6e-ab3c-4bc6-b34f-7103f88715de",
        "storage_location_choice",
        (
            (
                '<one entry per Storage Service location of that purpose, plus "Default Location">',
                "<location resource URI, e.g. /api/v2/location/default/AS/>",
            ),
        ),
    ),
    DecisionPoint(
        "Approve AIC",
        "Approve AIC",
        "6404ce13-8619-48ba-b12f-aa7a034153ac",
        "chain_choice",
        (
            ("Approve AIC", "5f34245e-5864-4199-aafc-bc0ada01d4cd"),
            ("Reject", "169a5448-c756-4705-a920-737de6b8d595"),
        ),
    ),
    DecisionPoint(
        "Approve Dataverse transfer",
        "Approve Dataverse transfer",
        "246943e4-d203-48e1-ac84-4865520e7c30",
        "chain_choice",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve Dataverse transfer", "10c00bc8-8fc2-419f-b593-cf5518695186"),
        ),
    ),
    DecisionPoint(
        "Approve SIP creation",
        "Approve SIP Creation",
        "ab69c494-23b7-4f50-acff-2e00cf7bffda",
        "chain_choice",
        (
            ("SIP Creation complete", "2eae85d6-da2f-4f1c-8c33-3810b55e23aa"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve DSpace transfer",
        "b963a646-0569-43c4-89a2-e3b814c5c08e",
        "chain_choice",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "1cb2ef0e-afe8-45b5-8d8f-a1e120f06605"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve bagit transfer",
        "f6bcc82a-d629-4a78-8643-bf6e3cb39fe6",
        "chain_choice",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "c75ef451-2040-4511-95ac-3baa0f019b48"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve maildir transfer",
        "998044bb-6260-452f-a742-cfb19e80125b",
        "chain_choice",
        (
            ("Approve transfer", "d381cf76-9313-415f-98a1-55c91e4d78e0"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve zipped bagit transfer",
        "15402367-2d3f-475e-b251-55532347a3c2",
        "chain_choice",
        (
            ("Approve transfer", "167dc382-4ab1-4051-8e22-e7f1c1bf3e6f"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Approve zipped transfer",
        "44e0b981-78d2-4403-8233-05038b3cc603",
        "chain_choice",
        (
            ("Approve transfer", "f3caceff-5ad5-4bad-b98c-e73f8cd03450"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
        ),
    ),
    DecisionPoint(
        "Approve transfer",
        "Assign UUIDs to directories?",
        "8882bad4-561c-4126-89c9-f7f0c083d5d7",
        "replacement_choice",
        (
            ("No", "0"),
            ("Yes", "1"),
        ),
    ),
    DecisionPoint(
        "Extract packages",
        "Delete package after extraction?",
        "f19926dd-8fb5-4c79-8ade-c83f61f55b40",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
    ),
    DecisionPoint(
        "Extract packages",
        "Do you want to scan for viruses in extracted files?",
        "1dad74a2-95df-4825-bbba-dca8b91d2371",
        "chain_choice",
        (
            ("Yes", "1ac7d792-b63f-46e0-9945-d48d9e5c02c9"),
            ("No", "697c0883-798d-4af7-b8b6-101c7f709cd5"),
        ),
    ),
    DecisionPoint(
        "Extract packages",
        "Extract packages?",
        "dec97e3c-5598-4b99-b26e-f87a435a6b7f",
        "chain_choice",
        (
            ("Yes", "01d80b27-4ad1-4bd1-8f8d-f819f18bf685"),
            ("No", "79f1f5af-7694-48a4-b645-e42790bbf870"),
        ),
    ),
    DecisionPoint(
        "Failed transfer compliance",
        "Attempt restructure for compliance?",
        "5c459c1a-f998-404d-a0dd-808709510b72",
        "chain_choice",
        (
            ("Attempt restructure for compliance", "082fa7d6-68e1-431c-9216-899aec92cfa7"),
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            (
                "Move transfer back to activeTransfers directory",
                "191914db-119e-4b91-8422-c77805ad8249",
            ),
        ),
    ),
    DecisionPoint(
        "Include default Transfer processingMCP.xml",
        "Assign UUIDs to directories?",
        "1563f22f-f5f7-4dfe-a926-6ab50d408832",
        "replacement_choice",
        (
            ("No", "0"),
            ("Yes", "1"),
        ),
    ),
    DecisionPoint(
        "Include default Transfer processingMCP.xml",
        "Assign UUIDs to directories?",
        "d6f6f5db-4cc2-4652-9283-9ec6a6d181e5",
        "replacement_choice",
        (
            ("No", "0"),
            ("Yes", "1"),
        ),
    ),
    DecisionPoint(
        "Normalize",
        "Normalize",
        "7509e7dc-1e1b-4dce-8d21-e130515fce73",
        "chain_choice",
        (
            ("Normalize for preservation", "612e3609-ce9a-4df6-a9a3-63d634d2d934"),
            ("Do not normalize", "e8544c5e-9cbb-4b8f-a68b-6d9b4d7f7362"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
    ),
    DecisionPoint(
        "Reingest AIP",
        "Approve AIP reingest",
        "9520386f-bb6d-4fb9-a6b6-5845ef39375f",
        "chain_choice",
        (
            ("Approve AIP reingest", "260ef4ea-f87d-4acf-830d-d0de41e6d2af"),
            ("Reject SIP", "a6ed697e-6189-4b4e-9f80-29209abc7937"),
        ),
    ),
    DecisionPoint(
        "Scan for viruses",
        "Do you want to scan for viruses in attachments?",
        "390d6507-5029-4dae-bcd4-ce7178c9b560",
        "chain_choice",
        (
            ("Yes", "34944d4f-762e-4262-8c79-b9fd48521ca0"),
            ("No", "63be6081-bee8-4cf5-a453-91893e31940f"),
        ),
    ),
    DecisionPoint(
        "TRIM transfer",
        "Approve TRIM transfer",
        "8db10a7b-924f-4561-87b4-cb6078c65aab",
        "chain_choice",
        (
            ("Reject transfer", "1b04ec43-055c-43b7-9543-bd03c6a778ba"),
            ("Approve transfer", "e4a59e3e-3dba-4eb5-9cf1-c1fb3ae61fa9"),
        ),
    ),
    DecisionPoint(
        "TRIM transfer",
        "Assign UUIDs to directories?",
        "e10a31c3-56df-4986-af7e-2794ddfe8686",
        "replacement_choice",
        (
            ("Yes", "0"),
            ("No", "1"),
        ),
    ),
    DecisionPoint(
        "Upload DIP",
        "Choose Config for ArchivesSpace DIP Upload",
        "a0db8294-f02a-4f49-a557-b1310a715ffc",
        "replacement_choice",
        (),
    ),
    DecisionPoint(
        "Upload DIP",
        "Choose config for AtoM DIP upload",
        "7f975ba6-2185-434c-b507-2911f3c77213",
        "replacement_choice",
        (),
    ),
)

_BY_LINK = {point.link_id: point for point in DECISION_POINTS}


def decision_point_by_link(link_id: str) -> DecisionPoint | None:
    return _BY_LINK.get(link_id.lower())


def decision_points_for(job: str, group: str = "") -> list[DecisionPoint]:
    """The decision points asked by the job named `job` (several jobs share a name).

    With a group, only that group's; the first of the list is the best guess.
    """
    found = [point for point in DECISION_POINTS if point.job == job]
    in_group = [point for point in found if group and point.group == group]
    return in_group or found
