"""Each pass of `make test` runs on the database it says it does.

`make test` sets LOOKOUT_TEST_DATABASE for each pass (sqlite, then postgresql through
tests/support/postgres_server.py): a pass whose DATABASE_URL went astray fails here
instead of quietly testing the same database twice.
"""

from __future__ import annotations

import os

import pytest
from django.db import connection


@pytest.mark.django_db
def test_the_tests_run_on_the_database_the_pass_is_for():
    expected = os.environ.get("LOOKOUT_TEST_DATABASE", "")
    if not expected:
        pytest.skip("LOOKOUT_TEST_DATABASE is not set (make test sets it for each pass)")
    assert connection.vendor == expected, (
        f"LOOKOUT_TEST_DATABASE={expected} but the tests run on {connection.vendor} "
        f"({connection.settings_dict['ENGINE']}): check DATABASE_URL"
    )
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SHOW fsync")
            fsync = cursor.fetchone()[0]
        # tests/support/postgres_server.py starts its server with fsync off; the
        # machine's own PostgreSQL does not run so.
        assert fsync == "off", (
            f"not the private test server: {connection.settings_dict['HOST']}:"
            f"{connection.settings_dict['PORT']}"
        )
