"""The documentation holds together: every relative link in README.md, BENCHMARKS.md and
docs/ leads to a file (and a heading) that exists, and every page of docs/ is linked from
the README, directly for the pages at the top of docs/, through other pages for the rest."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
INLINE_CODE = re.compile(r"`[^`\n]*`")
# [text](target) and ![alt](target); a title after the target ("...") is allowed.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def prose(text: str) -> str:
    """The text without code, where a bracket is not a link."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def link_targets(text: str) -> list[str]:
    return LINK.findall(prose(text))


def heading_anchors(text: str) -> set[str]:
    """Anchors as GitHub makes them: lower case, punctuation dropped, spaces to hyphens,
    a repeated heading suffixed -1, -2..."""
    anchors: set[str] = set()
    for title in HEADING.findall(FENCE.sub("", text)):
        words = re.sub(r"[^\w\- ]", "", title.replace("`", "").lower())
        anchor = words.replace(" ", "-")
        candidate, repeat = anchor, 0
        while candidate in anchors:
            repeat += 1
            candidate = f"{anchor}-{repeat}"
        anchors.add(candidate)
    return anchors


def broken_links(page: Path, root: Path) -> list[str]:
    """Each relative link of `page` whose file, or heading, does not exist."""
    broken = []
    for target in link_targets(page.read_text(encoding="utf-8")):
        if EXTERNAL.match(target):
            continue
        path_part, _, anchor = target.partition("#")
        linked = (page.parent / path_part).resolve() if path_part else page
        if not linked.exists() or not linked.is_relative_to(root):
            broken.append(f"{page.relative_to(root)}: {target} (no such file)")
        elif (
            anchor
            and linked.suffix == ".md"
            and anchor not in heading_anchors(linked.read_text(encoding="utf-8"))
        ):
            broken.append(f"{page.relative_to(root)}: {target} (no such heading)")
    return broken


def linked_pages(page: Path) -> set[Path]:
    pages = set()
    for target in link_targets(page.read_text(encoding="utf-8")):
        path_part = target.partition("#")[0]
        if path_part and not EXTERNAL.match(target) and path_part.endswith(".md"):
            pages.add((page.parent / path_part).resolve())
    return pages


def reachable_pages(start: Path) -> set[Path]:
    """Every existing Markdown page reached from `start` by following links."""
    seen: set[Path] = set()
    queue = [start.resolve()]
    while queue:
        page = queue.pop()
        if page in seen or not page.exists():
            continue
        seen.add(page)
        queue.extend(linked_pages(page) - seen)
    return seen


def documentation_pages(root: Path) -> list[Path]:
    pages = [root / "README.md", root / "BENCHMARKS.md", *(root / "docs").rglob("*.md")]
    return sorted(page for page in pages if page.exists())


def test_every_relative_link_in_the_docs_leads_somewhere() -> None:
    broken = [line for page in documentation_pages(ROOT) for line in broken_links(page, ROOT)]
    assert broken == []


def test_the_readme_links_every_page_at_the_top_of_docs() -> None:
    linked = linked_pages(ROOT / "README.md")
    missing = [page.name for page in sorted((ROOT / "docs").glob("*.md")) if page not in linked]
    assert missing == []


def test_every_page_under_docs_is_reached_from_the_readme() -> None:
    reached = reachable_pages(ROOT / "README.md")
    unreached = [
        str(page.relative_to(ROOT))
        for page in sorted((ROOT / "docs").rglob("*.md"))
        if page.resolve() not in reached
    ]
    assert unreached == []


def test_the_readme_fits_on_two_screens() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 80


def test_a_broken_file_link_and_a_missing_heading_are_both_found(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "alerts.md").write_text("# Alerts\n\n## Daily digest\n")
    readme = tmp_path / "README.md"
    readme.write_text(
        "[Alerts](docs/alerts.md#daily-digest) [gone](docs/gone.md) "
        "[digest](docs/alerts.md#weekly-digest) [site](https://example.org/x.md)\n"
        "```\n[in code](docs/nowhere.md)\n```\n"
    )

    assert broken_links(readme, tmp_path) == [
        "README.md: docs/gone.md (no such file)",
        "README.md: docs/alerts.md#weekly-digest (no such heading)",
    ]


def test_a_page_linked_from_nothing_is_not_reached(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "linked.md").write_text("# Linked\n\n[next](next.md)\n")
    (tmp_path / "docs" / "next.md").write_text("# Next\n")
    (tmp_path / "docs" / "orphan.md").write_text("# Orphan\n")
    (tmp_path / "README.md").write_text("[Linked](docs/linked.md)\n")

    reached = reachable_pages(tmp_path / "README.md")

    assert (tmp_path / "docs" / "next.md").resolve() in reached
    assert (tmp_path / "docs" / "orphan.md").resolve() not in reached


def test_anchors_follow_githubs_rules() -> None:
    text = "# Settings\n## E-mail, alerts and `metrics`\n## Roles\n## Roles\n```\n# not one\n```\n"

    assert heading_anchors(text) == {"settings", "e-mail-alerts-and-metrics", "roles", "roles-1"}
