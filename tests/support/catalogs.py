"""A small translation catalog compiled for one test, for checks that need words
translated (Lookout's own catalogs are written by translators, later).

The .po text is compiled with msgfmt (Debian's gettext) into a temporary folder, and
LOCALE_PATHS points there: changing that setting makes Django forget the catalogs it
had loaded, and the pytest-django `settings` fixture puts it back after the test.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

HEADER = r"""msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\n"

"""


def install_catalog(folder: Path, settings: Any, language: str, entries: str) -> None:
    messages = folder / language / "LC_MESSAGES"
    messages.mkdir(parents=True, exist_ok=True)
    (messages / "django.po").write_text(HEADER + entries, encoding="utf-8")
    subprocess.run(
        ["msgfmt", "--check", "-o", str(messages / "django.mo"), str(messages / "django.po")],
        check=True,
    )
    settings.LOCALE_PATHS = [str(folder)]
