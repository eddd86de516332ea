"""Create the database cache table used by the embedded default (no Redis).

`createcachetable` does nothing when the cache is Redis, so this is safe everywhere.
"""

from __future__ import annotations

from django.core.management import call_command
from django.db import migrations


def create_cache_table(apps, schema_editor) -> None:
    call_command("createcachetable", database=schema_editor.connection.alias, verbosity=0)


class Migration(migrations.Migration):
    dependencies = [("dashboard", "0001_initial")]

    operations = [migrations.RunPython(create_cache_table, migrations.RunPython.noop)]
