"""LOOKOUT_ROLE_MAP is checked at start-up: a mistake stops Lookout with a message that
names the variable, not a quiet "nobody has a role"."""

from __future__ import annotations

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.role_map import load_role_map
from tests.test_settings import last_line, run_check


def test_it_reads_groups_and_dns_to_roles():
    raw = '{"archivists": "viewer", " cn=ops,ou=groups,dc=example,dc=org ": "operator"}'

    assert load_role_map(raw) == {
        "archivists": "viewer",
        "cn=ops,ou=groups,dc=example,dc=org": "operator",
    }


def test_empty_means_no_mapping():
    assert load_role_map("") == {}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"archivists": "viewer"', "must be a JSON object from a group to a role"),
        ('["archivists"]', "not a list"),
        ('{"archivists": "superuser"}', "maps 'archivists' to 'superuser'; a role is one of"),
        ('{"archivists": ["viewer"]}', "a role is one of: viewer, operator, admin"),
        ('{" ": "viewer"}', "has an empty group name"),
    ],
)
def test_a_bad_mapping_is_refused_with_a_message_naming_the_variable(raw, message):
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_ROLE_MAP") as caught:
        load_role_map(raw)

    assert message in str(caught.value)


def test_manage_py_check_stops_on_a_bad_role_map(tmp_path):
    result = run_check(tmp_path, LOOKOUT_ROLE_MAP='{"archivists": "owner"}')

    assert result.returncode != 0
    assert "ImproperlyConfigured: LOOKOUT_ROLE_MAP maps 'archivists' to 'owner'" in last_line(
        result.stderr
    )
