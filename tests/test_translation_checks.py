"""`make lint`'s translation checks: each fails on a bad input and passes on a good one.

They run as `make lint` runs them, as a script over a project folder: here a small one
made in a temporary folder for each test.
"""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check-translations.py"


def check(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def write(root: Path, path: str, text: str) -> Path:
    file = root / path
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")
    return file


# ----------------------------------------------------------------------------- Python

BAD_PYTHON = {
    "a message": 'messages.success(request, "Saved.")',
    "an f-string message": 'messages.error(request, f"Not done for {label}.")',
    "a form error": 'raise forms.ValidationError("Too long.")',
    "an error per field": 'raise serializers.ValidationError({"name": "Too long."})',
    "a field label": 'name = forms.CharField(label="Name")',
    "a help text": 'name = models.CharField(max_length=5, help_text="What it is called")',
    "a choices label": 'kind = forms.ChoiceField(choices=[("a", "Any")])',
    "an API answer": 'return Response({"detail": "No such unit."}, status=404)',
    "a DRF detail": 'raise NotFound(detail="No such unit.")',
    "an error page": 'return not_found(request, "No such pipeline.")',
}


@pytest.mark.parametrize("line", BAD_PYTHON.values(), ids=BAD_PYTHON.keys())
def test_a_python_string_a_person_reads_must_be_translatable(tmp_path, line):
    write(tmp_path, "app/views.py", f"def view(request):\n    {line}\n")

    done = check(tmp_path, "source")

    assert done.returncode == 1
    assert "app/views.py:2: untranslatable" in done.stdout


@pytest.mark.parametrize(
    "line",
    [
        'messages.success(request, _("Saved."))',
        'messages.error(request, _("Not done for %(label)s.") % {"label": label})',
        'raise forms.ValidationError(gettext_lazy("Too long."))',
        'name = forms.CharField(label=pgettext_lazy("person", "Name"))',
        'kind = forms.ChoiceField(choices=[("a", _("Any"))])',
        'return Response({"detail": _("No such unit.")}, status=404)',
        "messages.info(request, str(exc))",  # words made elsewhere are checked there
        'audit(label=f"User {name}")',  # data, not a field's label
        'messages.success(request, "Saved.")  # notranslate',
        'raise PermissionDenied(\n        "Only for the log."\n    )  # notranslate',
    ],
)
def test_a_translated_or_deliberate_string_passes(tmp_path, line):
    write(tmp_path, "app/views.py", f"def view(request):\n    {line}\n")

    done = check(tmp_path, "source")

    assert done.returncode == 0, done.stdout


def test_a_choices_class_needs_translated_labels(tmp_path):
    write(
        tmp_path,
        "app/models.py",
        """
        class Kind(models.TextChoices):
            GOOD = "good", _("Good")
            BAD = "bad", "Bad"
        """,
    )

    done = check(tmp_path, "source")

    assert done.stdout.splitlines() == ["app/models.py:3: untranslatable choices label: 'Bad'"]


def test_tests_migrations_and_commands_are_not_checked(tmp_path):
    for path in ("tests/test_x.py", "app/migrations/0001_x.py", "app/management/commands/x.py"):
        write(tmp_path, path, 'messages.success(request, "Saved.")\n')

    assert check(tmp_path, "source").returncode == 0


# ----------------------------------------------------------------------------- templates


BAD_TEMPLATES = {
    "text": "<p>Waiting units</p>",
    "text beside a variable": "<p>{{ count }} units</p>",
    "a title": '<a href="/" title="Close">{% translate "x" %}</a>',
    "an aria label": '<nav aria-label="Main menu"></nav>',
    "a placeholder": '<input name="q" placeholder="Search">',
    "a button's value": '<input type="submit" value="Save">',
    "a literal default": '<p>{{ name|default:"nobody" }}</p>',
    "an English plural": "<p>{{ n }} unit{{ n|pluralize }}</p>",
    "English words for a count": '<p>{{ n|count_noun:"unit" }}</p>',
}


@pytest.mark.parametrize("html", BAD_TEMPLATES.values(), ids=BAD_TEMPLATES.keys())
def test_template_text_a_person_reads_must_be_translatable(tmp_path, html):
    write(tmp_path, "templates/page.html", "{% load i18n %}\n" + html + "\n")

    done = check(tmp_path, "source", "--templates")

    assert done.returncode == 1
    assert "templates/page.html:2:" in done.stdout


@pytest.mark.parametrize(
    "html",
    [
        '<p>{% translate "Waiting units" %}</p>',
        "<p>{% blocktranslate count n=count %}{{ n }} unit{% plural %}{{ n }} units"
        "{% endblocktranslate %}</p>",
        '<a href="/" title="{% translate "Close" %}">×</a>',
        '<input type="text" name="q" value="AIP">',  # a value typed, not a button's words
        "<p>{{ unit.name }} — {{ unit.uuid }}</p>",
        "<script>const label = 'not prose';</script><code>?status=FAILED</code>",
        "{% comment %}Notes for developers{% endcomment %}",
        "<p>Lookout</p>{# notranslate #}",
    ],
)
def test_translated_template_text_passes(tmp_path, html):
    write(tmp_path, "templates/page.html", "{% load i18n %}\n" + html + "\n")

    done = check(tmp_path, "source", "--templates")

    assert done.returncode == 0, done.stdout


def test_templates_are_checked_only_when_asked(tmp_path):
    write(tmp_path, "templates/page.html", "<p>Waiting units</p>\n")

    assert check(tmp_path, "source").returncode == 0
    assert check(tmp_path, "source", "--templates").returncode == 1


# ----------------------------------------------------------------------------- catalogs

MANAGE = """
import os
import sys

from django.core.management import execute_from_command_line

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")
execute_from_command_line(sys.argv)
"""
SETTINGS = """
from pathlib import Path

BASE_DIR = Path(__file__).resolve().parent
SECRET_KEY = "only-for-this-test"
INSTALLED_APPS = []
USE_I18N = True
LANGUAGES = [("en", "English"), ("fr", "French")]
LOCALE_PATHS = [BASE_DIR / "locale"]
"""
CATALOG = """
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n > 1);\\n"

#: app/views.py
msgid "Saved."
msgstr "Enregistré."
"""


@pytest.fixture
def project(tmp_path) -> Path:
    """A Django project with one string and its French catalog, up to date and complete."""
    write(tmp_path, "manage.py", MANAGE)
    write(tmp_path, "settings.py", SETTINGS)
    write(
        tmp_path,
        "app/views.py",
        'from django.utils.translation import gettext as _\n\nSAVED = _("Saved.")\n',
    )
    write(tmp_path, "locale/fr/LC_MESSAGES/django.po", CATALOG)
    return tmp_path


def test_an_up_to_date_complete_catalog_passes(project):
    done = check(project, "catalogs", "complete")

    assert done.returncode == 0, done.stdout + done.stderr


def test_a_new_string_makes_the_catalog_out_of_date(project):
    views = project / "app" / "views.py"
    views.write_text(views.read_text() + 'REMOVED = _("Removed.")\n')

    done = check(project, "catalogs")

    assert done.returncode == 1
    assert "locale/fr/LC_MESSAGES/django.po: out of date (1 new, 0 no longer used)" in done.stdout
    # The check worked on a copy: the catalog itself is untouched.
    assert "Removed." not in (project / "locale/fr/LC_MESSAGES/django.po").read_text()


def test_a_string_no_longer_used_makes_the_catalog_out_of_date(project):
    (project / "app" / "views.py").write_text("")

    done = check(project, "catalogs")

    assert "out of date (0 new, 1 no longer used)" in done.stdout


def test_a_moved_string_changes_nothing_that_counts(project):
    views = project / "app" / "views.py"
    views.write_text("\n\n\n" + views.read_text())

    assert check(project, "catalogs").returncode == 0


@pytest.mark.parametrize(
    ("entry", "counts"),
    [
        ('msgid "Saved."\nmsgstr ""\n', "1 untranslated and 0 fuzzy"),
        ('#, fuzzy\nmsgid "Saved."\nmsgstr "Enregistré."\n', "0 untranslated and 1 fuzzy"),
    ],
    ids=["untranslated", "fuzzy"],
)
def test_a_language_under_100_percent_fails(project, entry, counts):
    catalog = project / "locale/fr/LC_MESSAGES/django.po"
    catalog.write_text(CATALOG.split("#: app/views.py")[0] + entry, encoding="utf-8")

    done = check(project, "complete")

    assert done.returncode == 1
    assert f"locale/fr/LC_MESSAGES/django.po: {counts} entries" in done.stdout


def test_languages_without_a_catalog_are_not_checked_yet(project):
    (project / "locale/fr/LC_MESSAGES/django.po").unlink()
    views = project / "app" / "views.py"
    views.write_text(views.read_text() + 'REMOVED = _("Removed.")\n')

    assert check(project, "catalogs", "complete").returncode == 0


# ----------------------------------------------------------------------------- the real tree

# What `make lint` reads of the project: its code, templates and scripts, no catalog.
REAL_TREE = ("manage.py", "config", "dashboard", "templates", "static/dashboard")


def load_script() -> object:
    spec = importlib.util.spec_from_file_location("check_translations", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def real_tree(tmp_path_factory) -> Path:
    """A copy of the project's own sources with a French catalog as `make messages`
    writes it (every message id of today's tree, none translated)."""
    root = tmp_path_factory.mktemp("real") / "project"
    for part in REAL_TREE:
        source = ROOT / part
        if source.is_dir():
            shutil.copytree(source, root / part, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            (root / part).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(source, root / part)
    load_script()._makemessages(root, ["fr"])  # type: ignore[attr-defined]
    assert (root / "locale/fr/LC_MESSAGES/django.po").is_file()
    return root


@pytest.fixture
def tree(real_tree, tmp_path) -> Path:
    """The real tree, for one test to change."""
    copy = tmp_path / "project"
    shutil.copytree(real_tree, copy)
    return copy


def append(file: Path, text: str) -> None:
    file.write_text(file.read_text(encoding="utf-8") + text, encoding="utf-8")


def test_the_real_tree_passes_the_source_and_catalog_checks(tree):
    done = check(tree, "--templates", "source", "catalogs")

    assert done.returncode == 0, done.stdout + done.stderr


def test_an_unmarked_string_in_a_real_template_or_view_fails(tree):
    append(tree / "templates/dashboard/unit_list.html", "<p>Units nobody translated</p>\n")
    append(
        tree / "dashboard/views/units.py",
        '\n\ndef hidden_too(request):\n    messages.success(request, "Hidden as well.")\n',
    )

    done = check(tree, "--templates", "source")

    assert done.returncode == 1
    found = done.stdout.splitlines()
    assert any(line.startswith("templates/dashboard/unit_list.html:") for line in found), found
    assert any(line.startswith("dashboard/views/units.py:") for line in found), found
    assert len(found) == 2, found


def test_a_new_message_in_a_real_template_and_script_makes_the_catalogs_out_of_date(tree):
    append(
        tree / "templates/dashboard/unit_list.html",
        '{% translate "A sentence no catalog has yet" %}\n',
    )
    append(tree / "static/dashboard/js/wall.js", '\ngettext("A script line no catalog has");\n')

    done = check(tree, "catalogs")

    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        "locale/fr/LC_MESSAGES/django.po: out of date (1 new, 0 no longer used); "
        "run `make messages` and translate",
        "locale/fr/LC_MESSAGES/djangojs.po: out of date (1 new, 0 no longer used); "
        "run `make messages` and translate",
    ]


def test_a_real_catalog_left_untranslated_is_under_100_percent(tree):
    done = check(tree, "complete")

    assert done.returncode == 1
    assert "locale/fr/LC_MESSAGES/django.po: " in done.stdout
    assert "untranslated and 0 fuzzy entries" in done.stdout
