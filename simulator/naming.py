"""Plausible names for transfers and their files, drawn from seeded streams.

A few names carry HTML or non-ASCII text on purpose, so that every layer
downstream has to escape and encode properly.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

TOPICS = (
    "Board minutes",
    "Annual reports",
    "Oral history interviews",
    "Harbour photographs",
    "Smith family papers",
    "Building permits",
    "Staff newsletters",
    "Field notebooks",
    "Exhibition catalogues",
    "Press clippings",
    "Survey maps",
    "Committee correspondence",
    "Research datasets",
    "Audio recordings",
    "Student theses",
    "Parish registers",
)
TRICKY_NAMES = (
    "<img src=x onerror=alert(1)>",
    'Report <b>draft</b> & "quotes"',
    "<script>alert('x')</script> letters",
)
NON_ASCII_NAMES = (
    "Correspondance d'Émilie Dupré",
    "Archiv Müller – Fotografien",
    "Fotografías de la Sierra",
    "東京事務所の記録",
    "Ørestad byggesager",
    "Письма 1917",
)
FILE_STEMS = (
    "scan",
    "letter",
    "photo",
    "minutes",
    "report",
    "interview",
    "map",
    "ledger",
    "notebook",
    "poster",
    "recording",
    "dataset",
    "page",
    "draft",
)
NON_ASCII_FILE_STEMS = ("façade", "größe", "niño", "日記", "smörgåsbord", "Ελλάδα")
EXTENSIONS = (
    (".tif", 20_000_000),
    (".jpg", 3_000_000),
    (".pdf", 1_500_000),
    (".docx", 200_000),
    (".wav", 60_000_000),
    (".csv", 80_000),
    (".xml", 40_000),
    (".mp4", 120_000_000),
    (".txt", 8_000),
    (".png", 2_000_000),
)


@dataclass(frozen=True)
class SimFile:
    name: str
    size: int


def transfer_name(rng: random.Random, number: int) -> str:
    """Seeded transfer names; every 17th carries HTML, every 11th non-ASCII text."""
    if number % 17 == 3:
        return TRICKY_NAMES[(number // 17) % len(TRICKY_NAMES)]
    if number % 11 == 5:
        return NON_ASCII_NAMES[(number // 11) % len(NON_ASCII_NAMES)]
    topic = rng.choice(TOPICS)
    style = rng.random()
    if style < 0.4:
        return f"{topic} {rng.randint(1890, 2023)}"
    if style < 0.7:
        return f"{topic.lower().replace(' ', '_')}_batch_{rng.randint(1, 40):02d}"
    return topic


def file_count(rng: random.Random) -> int:
    """1 to 50 files, most units small."""
    return 1 + int(49 * rng.random() ** 2)


def unit_files(rng: random.Random, count: int) -> list[SimFile]:
    files = []
    for index in range(count):
        stems = NON_ASCII_FILE_STEMS if rng.random() < 0.1 else FILE_STEMS
        extension, typical_size = rng.choice(EXTENSIONS)
        size = max(1, int(typical_size * rng.lognormvariate(0, 0.8)))
        files.append(SimFile(f"{rng.choice(stems)}_{index + 1:03d}{extension}", size))
    return files
