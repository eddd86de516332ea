#!/usr/bin/env python3
"""`make lint`'s translation checks, and `make messages`.

Three checks, each a function of a project folder:

- `source`: a user-visible string that cannot be translated. Python: a string literal
  handed to `messages.*`, `ValidationError` (and DRF's exceptions), `add_error`, a
  `label=`/`help_text=`/`verbose_name=`/`detail=` argument, a `choices` label or a
  `*Choices` member's label, a `{"detail": ...}` answer, not wrapped in a gettext
  function. Templates (with --templates): text with letters outside `{% translate %}`,
  `{% blocktranslate %}`, tags and variables, and the attributes a person reads (title,
  aria-label, placeholder, alt, a button's value). A line that says `# notranslate`
  (Python) or `{# notranslate #}` (templates) is a deliberate exception.
- `catalogs`: a catalog that `makemessages` would change. It runs in a temporary copy of
  the project, and the message ids (not the dates or the line numbers) are compared.
- `complete`: a catalog with untranslated or fuzzy entries (`msgfmt --statistics`).

`catalogs` and `complete` look only at the languages that have a catalog in locale/, so
a language is checked from the moment its catalog is added.

    scripts/check-translations.py [--root DIR] [--templates] [source|catalogs|complete ...]
    scripts/check-translations.py --update   # make messages: every language of LANGUAGES

Exit 1 when a check finds something, each finding on its own line.
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOMAINS = ("django", "djangojs")
# Where no string shown to a person lives: tools, tests, the upstream simulator, other
# projects' files. makemessages skips the same folders.
IGNORED_DIRS = frozenset(
    {
        ".git",
        ".venv",
        "venv",
        "node_modules",
        "tests",
        "bench",
        "test-artifacts",
        "var",
        "docs",
        "deploy",
        "scripts",
        "simulator",
        "locale",
        "vendor",
        "__pycache__",
    }
)
# The same, as makemessages' --ignore patterns (matched against paths), plus static
# files made by tools: minified or vendored JavaScript and the built JavaScript catalog.
IGNORE_PATTERNS = [
    *(f"{name}/*" for name in sorted(IGNORED_DIRS)),
    "*/vendor/*",
    "*.min.js",
    "*jsi18n*",
    "*/migrations/*",
]
# Locations: the file without its line numbers, so that moving code does not touch
# every catalog, while a translator still sees where a string comes from.
MAKEMESSAGES_OPTIONS = ["--add-location=file", "--no-obsolete", "--no-wrap"]
NOTRANSLATE = "notranslate"
GETTEXT_FUNCTIONS = frozenset(
    {
        "_",
        "gettext",
        "gettext_lazy",
        "ngettext",
        "ngettext_lazy",
        "pgettext",
        "pgettext_lazy",
        "npgettext",
        "npgettext_lazy",
        "gettext_noop",
    }
)
MESSAGE_LEVELS = frozenset({"debug", "info", "success", "warning", "error"})
ERROR_CLASSES = frozenset(
    {
        "ValidationError",
        "ParseError",
        "NotFound",
        "PermissionDenied",
        "AuthenticationFailed",
        "NotAuthenticated",
        "APIException",
        # Lookout's own refusals, whose message a page or the API shows as it is.
        "ActionNotPossible",
        "AlertError",
        "ApiTokenError",
        "ApiTokenKeyReused",
        "WallLinkExists",
        "WallLinkNotFound",
        "WallLinkAlreadyRevoked",
    }
)
# Keywords whose value a person reads: DRF's detail, model names, and this project's
# page titles and confirmation words (`title=`, `question=`, `button=`, `done_text=`...).
TEXT_KEYWORDS = frozenset(
    {
        "detail",
        "verbose_name",
        "verbose_name_plural",
        "title",
        "question",
        "button",
        "done_text",
        "needs",
        "not_ready",
        "desc",
    }
)
# Calls that show their argument at this position on an error page.
PAGE_TEXT_ARGUMENTS = {
    "forbidden": 1,
    "not_found": 1,
    "HttpResponseBadRequest": 0,
    "HttpResponseForbidden": 0,
    "HttpResponseNotFound": 0,
}
# Keys of a literal dict (a page's context, an API answer) whose value a person reads.
TEXT_KEYS = frozenset(
    {"detail", "error", "title", "page_title", "heading", "placeholder", "aria-label", "alt"}
)
# Read only on a field (a form's, a model's, a serializer's): elsewhere `label=` is data.
FIELD_KEYWORDS = frozenset({"label", "help_text", "empty_label"})


def _has_letters(text: str) -> bool:
    return any(ch.isalpha() for ch in text)


def _walk(root: Path, suffixes: tuple[str, ...]) -> Iterator[Path]:
    for folder, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if d not in IGNORED_DIRS and not d.startswith("."))
        for name in sorted(filenames):
            if name.endswith(suffixes):
                yield Path(folder) / name


# --------------------------------------------------------------------------- Python


def _untranslated(node: ast.AST | None) -> bool:
    """A literal with letters (or built from one) that no gettext function wraps."""
    if node is None:
        return False
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and _has_letters(node.value)
    if isinstance(node, ast.JoinedStr):
        return any(_untranslated(part) for part in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return _untranslated(node.left) or _untranslated(node.right)
    if isinstance(node, ast.IfExp):
        return _untranslated(node.body) or _untranslated(node.orelse)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        # "...".format(...) and "...".join(...): the literal is the untranslated part.
        return node.func.attr == "format" and _untranslated(node.func.value)
    return False


def _name(func: ast.AST) -> str:
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


# Statements that hold others: a marker on an `if` line must not cover its whole body.
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.FunctionDef,
    ast.AsyncFunctionDef,
    ast.ClassDef,
    ast.Match,
)


def _choice_labels(node: ast.AST) -> Iterator[ast.AST]:
    """The labels of a literal choices list: `[("a", "A"), ("b", "B")]`."""
    if isinstance(node, (ast.List, ast.Tuple)):
        for item in node.elts:
            if isinstance(item, (ast.List, ast.Tuple)) and len(item.elts) == 2:
                yield item.elts[1]
    elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _choice_labels(node.left)
        yield from _choice_labels(node.right)


class _PythonCheck(ast.NodeVisitor):
    def __init__(self, *, api: bool = False) -> None:
        # Each finding with the lines a `# notranslate` may stand on: its own, or those of
        # the simple statement around it (a formatter may move the comment to its end).
        self.found: list[tuple[ast.AST, str, range]] = []
        # The API's schema documents fields for developers, in English like the fields.
        self.api = api
        self.statement: ast.stmt | None = None

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not isinstance(node, _COMPOUND):
            outer, self.statement = self.statement, node
            super().visit(node)
            self.statement = outer
        else:
            super().visit(node)

    def _flag(self, node: ast.AST | None, why: str) -> None:
        if node is not None and _untranslated(node):
            around = self.statement or node
            first = min(getattr(node, "lineno", 1), getattr(around, "lineno", 1))
            last = max(getattr(node, "end_lineno", 1) or 1, getattr(around, "end_lineno", 1) or 1)
            self.found.append((node, why, range(first, last + 1)))

    def visit_Call(self, node: ast.Call) -> None:
        name = _name(node.func)
        owner = node.func.value if isinstance(node.func, ast.Attribute) else None
        if isinstance(owner, ast.Name) and owner.id == "messages":
            if name in MESSAGE_LEVELS and len(node.args) >= 2:
                self._flag(node.args[1], f"messages.{name}")
            elif name == "add_message" and len(node.args) >= 3:
                self._flag(node.args[2], "messages.add_message")
        if name in ERROR_CLASSES and node.args:
            message = node.args[0]
            parts = message.values if isinstance(message, ast.Dict) else [message]
            for part in parts:
                for item in part.elts if isinstance(part, (ast.List, ast.Tuple)) else [part]:
                    self._flag(item, name)
        position = PAGE_TEXT_ARGUMENTS.get(name)
        if position is not None and len(node.args) > position:
            self._flag(node.args[position], name)
        if name == "add_error" and len(node.args) >= 2:
            self._flag(node.args[1], "add_error")
        for keyword in node.keywords:
            field_text = keyword.arg in FIELD_KEYWORDS and name.endswith("Field")
            if (
                keyword.arg in TEXT_KEYWORDS
                or (field_text and not self.api)
                or (keyword.arg == "message" and name in ERROR_CLASSES)
            ):
                self._flag(keyword.value, f"{keyword.arg}=")
            elif keyword.arg == "choices":
                for label in _choice_labels(keyword.value):
                    self._flag(label, "choices label")
        self.generic_visit(node)

    def visit_Dict(self, node: ast.Dict) -> None:
        for key, value in zip(node.keys, node.values, strict=True):
            if isinstance(key, ast.Constant) and key.value in TEXT_KEYS:
                self._flag(value, f"{key.value!r}")
        self.generic_visit(node)

    def visit_Assign(self, node: ast.Assign) -> None:
        # `field.choices = [...]`, `SILENCE_CHOICES = [...]`: choices made apart from a field.
        if any(_name(target).lower().endswith("choices") for target in node.targets):
            for label in _choice_labels(node.value):
                self._flag(label, "choices label")
        self.generic_visit(node)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is not None and _name(node.target).lower().endswith("choices"):
            for label in _choice_labels(node.value):
                self._flag(label, "choices label")
        self.generic_visit(node)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        choices = any(_name(base).endswith("Choices") for base in node.bases)
        for statement in node.body:
            if not isinstance(statement, ast.Assign):
                continue
            targets = {_name(target) for target in statement.targets}
            if targets & {"verbose_name", "verbose_name_plural"}:
                self._flag(statement.value, "verbose_name")
            elif choices and isinstance(statement.value, ast.Tuple) and statement.value.elts:
                self._flag(statement.value.elts[-1], "choices label")
        self.generic_visit(node)


def check_python_file(path: Path) -> list[tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    checker = _PythonCheck(api="api" in path.parts)
    checker.visit(ast.parse(source, filename=str(path)))
    findings = []
    for node, why, span in checker.found:
        if any(NOTRANSLATE in lines[number - 1] for number in span if number <= len(lines)):
            continue
        findings.append((getattr(node, "lineno", 1), f"{why}: {ast.unparse(node)[:80]}"))
    return findings


# --------------------------------------------------------------------------- templates

# Stand-in for a tag, a variable or a translated block: no letters, one character.
_HOLE = "\ufffc"
_SKIPPED_BLOCKS = {
    "blocktranslate": "endblocktranslate",
    "blocktrans": "endblocktrans",
    "comment": "endcomment",
    "verbatim": "endverbatim",
}
# Elements whose content is code, not prose.
_CODE_ELEMENTS = frozenset({"script", "style", "code", "pre", "kbd", "samp"})
_READ_ATTRIBUTES = frozenset({"title", "aria-label", "placeholder", "alt"})
_BUTTON_TYPES = frozenset({"submit", "button", "reset"})
# A filter given English words (`|default:"none"`, `|count_noun:"unit"`), or English
# plurals (`|pluralize`): blocktranslate with count says it in every language.
_LITERAL_FILTER = re.compile(
    r"\|(?:default|default_if_none|count_noun|plural):(?:\"([^\"]*)\"|'([^']*)')|\|(pluralize)\b"
)


def _template_text(source: str) -> str:
    """The template with every tag, variable, comment and translated block replaced by
    one letterless character (and the newlines they held, so lines still match)."""
    from django.template.base import Lexer, TokenType

    out = []
    closing: str | None = None
    for token in Lexer(source).tokenize():
        contents = token.contents
        if token.token_type == TokenType.TEXT and closing is None:
            out.append(contents)
            continue
        newlines = contents.count("\n")
        if token.token_type == TokenType.BLOCK:
            word = contents.split(" ", 1)[0]
            if closing is None and word in _SKIPPED_BLOCKS:
                closing = _SKIPPED_BLOCKS[word]
            elif word == closing:
                closing = None
        out.append(_HOLE + "\n" * newlines)
    return "".join(out)


class _TemplateCheck(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[tuple[int, str]] = []
        self.code_depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for name, value in attrs:
            readable = name in _READ_ATTRIBUTES or (
                name == "value" and tag == "input" and values.get("type") in _BUTTON_TYPES
            )
            if readable and value and _has_letters(value.replace(_HOLE, "")):
                self.found.append((self.getpos()[0], f'<{tag} {name}="{value.strip()[:60]}">'))
        if tag in _CODE_ELEMENTS:
            self.code_depth += 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag in _CODE_ELEMENTS:
            self.code_depth -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag in _CODE_ELEMENTS and self.code_depth:
            self.code_depth -= 1

    def handle_data(self, data: str) -> None:
        if self.code_depth or not _has_letters(data):
            return
        # The line of the first letter, not of the whitespace before it.
        line = self.getpos()[0] + data[: len(data) - len(data.lstrip())].count("\n")
        self.found.append((line, " ".join(data.split())[:80]))


def check_template_file(path: Path) -> list[tuple[int, str]]:
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    checker = _TemplateCheck()
    checker.feed(_template_text(source))
    checker.close()
    findings = list(checker.found)
    for number, line in enumerate(lines, start=1):
        for match in _LITERAL_FILTER.finditer(line):
            if _has_letters(match[1] or match[2] or match[3] or ""):
                findings.append((number, f"English words in a filter: {match[0]}"))
    return sorted(
        (number, text.replace(_HOLE, "{…}"))
        for number, text in findings
        if not (0 < number <= len(lines) and NOTRANSLATE in lines[number - 1])
    )


def check_source(root: Path, *, templates: bool) -> list[str]:
    findings = []
    for path in _walk(root, (".py",)):
        if {"management", "migrations"} & set(path.parts):
            continue  # command output is for operators, in English; migrations are history
        findings += [
            f"{path.relative_to(root)}:{line}: untranslatable {text}"
            for line, text in check_python_file(path)
        ]
    if templates:
        for path in _walk(root, (".html", ".txt")):
            if "templates" not in path.parts:
                continue
            findings += [
                f"{path.relative_to(root)}:{line}: untranslated text: {text}"
                for line, text in check_template_file(path)
            ]
    return findings


# --------------------------------------------------------------------------- catalogs

_STRING = re.compile(r'"((?:[^"\\]|\\.)*)"')


def catalog_ids(path: Path) -> set[tuple[str, str, str]]:
    """(context, id, plural id) of every live entry of a .po file, header aside."""
    entries: set[tuple[str, str, str]] = set()
    current: dict[str, str] = {}
    field = ""

    def close() -> None:
        if current.get("msgid"):
            key = (current.get("msgctxt", ""), current["msgid"], current.get("msgid_plural", ""))
            entries.add(key)
        current.clear()

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue  # comments, and obsolete entries (#~)
        keyword = line.split(" ", 1)[0]
        if keyword in {"msgctxt", "msgid"} and field.startswith("msgstr"):
            close()
        if keyword.startswith(("msgctxt", "msgid", "msgstr")):
            field = keyword
            current.setdefault(field, "")
        match = _STRING.search(line)
        if match and field:
            current[field] = current.get(field, "") + match[1]
    close()
    return entries


def catalog_languages(root: Path) -> list[str]:
    """The languages with a catalog in locale/ (folder names: fr, pt_BR)."""
    locale = root / "locale"
    if not locale.is_dir():
        return []
    return sorted(
        folder.name
        for folder in locale.iterdir()
        if any((folder / "LC_MESSAGES" / f"{domain}.po").is_file() for domain in DOMAINS)
    )


def _project_env() -> dict[str, str]:
    """The environment for the project's manage.py: it names its own settings."""
    return {name: value for name, value in os.environ.items() if name != "DJANGO_SETTINGS_MODULE"}


def _makemessages(project: Path, languages: list[str]) -> None:
    for domain in DOMAINS:
        extensions = ["--extension", "html,txt,py"] if domain == "django" else []
        subprocess.run(
            [
                sys.executable,
                "manage.py",
                "makemessages",
                "--domain",
                domain,
                *[f"--locale={language}" for language in languages],
                *[f"--ignore={pattern}" for pattern in IGNORE_PATTERNS],
                *extensions,
                *MAKEMESSAGES_OPTIONS,
                "--verbosity=0",
            ],
            cwd=project,
            env=_project_env(),
            check=True,
        )


def check_catalogs(root: Path) -> list[str]:
    languages = catalog_languages(root)
    if not languages:
        return []
    findings = []
    with tempfile.TemporaryDirectory() as folder:
        copy = Path(folder) / "project"
        shutil.copytree(
            root,
            copy,
            ignore=shutil.ignore_patterns(
                *(name for name in IGNORED_DIRS if name not in {"locale", "scripts"}),
                ".*_cache",
                "*.mo",
            ),
            symlinks=True,
        )
        # Made afresh from the sources: only the message ids are compared.
        for catalog in (copy / "locale").glob("*/LC_MESSAGES/*.po"):
            catalog.unlink()
        _makemessages(copy, languages)
        for language in languages:
            for domain in DOMAINS:
                relative = Path("locale") / language / "LC_MESSAGES" / f"{domain}.po"
                before = catalog_ids(root / relative) if (root / relative).is_file() else set()
                after = catalog_ids(copy / relative) if (copy / relative).is_file() else set()
                if before != after:
                    added, gone = len(after - before), len(before - after)
                    findings.append(
                        f"{relative}: out of date ({added} new, {gone} no longer used); "
                        "run `make messages` and translate"
                    )
    return findings


_STATISTIC = re.compile(r"(\d+) (translated|fuzzy|untranslated)")


def check_complete(root: Path) -> list[str]:
    findings = []
    for language in catalog_languages(root):
        for domain in DOMAINS:
            relative = Path("locale") / language / "LC_MESSAGES" / f"{domain}.po"
            if not (root / relative).is_file():
                continue
            done = subprocess.run(
                ["msgfmt", "--check", "--statistics", "-o", os.devnull, str(root / relative)],
                capture_output=True,
                text=True,
                env={**os.environ, "LC_ALL": "C"},
            )
            counts = {kind: int(n) for n, kind in _STATISTIC.findall(done.stderr)}
            missing = counts.get("untranslated", 0) + counts.get("fuzzy", 0)
            if done.returncode:
                findings.append(f"{relative}: msgfmt refuses it: {done.stderr.strip()}")
            elif missing:
                findings.append(
                    f"{relative}: {counts.get('untranslated', 0)} untranslated and "
                    f"{counts.get('fuzzy', 0)} fuzzy entries"
                )
    return findings


# --------------------------------------------------------------------------- make messages


def update(root: Path) -> None:
    """makemessages for every language of settings.LANGUAGES but English, then compile."""
    languages = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django; django.setup(); from django.conf import settings, global_settings;"
            "from django.utils.translation import to_locale;"
            "assert settings.LANGUAGES != global_settings.LANGUAGES, 'set LANGUAGES first';"
            "print(' '.join(to_locale(c) for c, _ in settings.LANGUAGES if c != 'en'))",
        ],
        cwd=root,
        env={"DJANGO_SETTINGS_MODULE": "config.settings", **os.environ},
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    _makemessages(root, languages)
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "compilemessages",
            *[f"--locale={language}" for language in languages],
            *[f"--ignore={pattern}" for pattern in IGNORE_PATTERNS],
            "--verbosity=0",
        ],
        cwd=root,
        check=True,
    )
    print(f"Catalogs updated and compiled: {', '.join(languages)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checks", nargs="*", default=["source", "catalogs", "complete"])
    parser.add_argument("--root", type=Path, default=ROOT)
    parser.add_argument("--templates", action="store_true", help="check templates too")
    parser.add_argument("--update", action="store_true", help="make messages instead")
    args = parser.parse_args(argv)
    root = args.root.resolve()
    if args.update:
        update(root)
        return 0
    findings: list[str] = []
    if "source" in args.checks:
        findings += check_source(root, templates=args.templates)
    if "catalogs" in args.checks:
        findings += check_catalogs(root)
    if "complete" in args.checks:
        findings += check_complete(root)
    for finding in findings:
        print(finding)
    if findings:
        print(f"{len(findings)} translation problems", file=sys.stderr)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())
