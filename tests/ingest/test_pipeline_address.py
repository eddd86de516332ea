"""Which storage-service pipeline is a Lookout pipeline: by host, and port when named."""

from __future__ import annotations

import pytest

from dashboard.selectors.ingest import _same_address


@pytest.mark.parametrize(
    ("remote_name", "pipeline_url", "same"),
    [
        ("127.0.0.1:8001", "http://127.0.0.1:8001", True),
        ("127.0.0.1:8003", "http://127.0.0.1:8001", False),
        ("http://127.0.0.1:8003", "http://127.0.0.1:8003", True),
        ("archive.example.org", "https://archive.example.org", True),
        ("Archive.Example.org:443", "https://archive.example.org", True),
        ("archive.example.org:8000", "https://archive.example.org", False),
        ("other.example.org", "https://archive.example.org", False),
    ],
)
def test_a_pipeline_is_matched_by_host_and_by_port_when_one_is_given(
    remote_name, pipeline_url, same
):
    assert _same_address(remote_name, pipeline_url) is same
