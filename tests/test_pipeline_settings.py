"""The per-pipeline settings the workflow operations use: the UI link and config names."""

from __future__ import annotations

import json

import pytest
from django.core.exceptions import ImproperlyConfigured

from config.pipelines import load_pipelines
from dashboard.lib.pipelines import PipelineConfig

FIRST = {"slug": "main", "url": "https://main.example.org/", "user": "u", "key": "k"}


def test_the_ui_url_defaults_to_the_pipelines_url():
    (pipeline,) = load_pipelines(first=FIRST, extra_file="")
    assert pipeline["ui_url"] == "https://main.example.org"
    assert pipeline["processing_configs"] == ["default", "automated"]


def test_the_ui_url_and_config_names_are_read_from_the_first_pipeline():
    (pipeline,) = load_pipelines(
        first={
            **FIRST,
            "ui_url": "https://ui.example.org/",
            "processing_configs": "default, automated,nightly",
        },
        extra_file="",
    )
    assert pipeline["ui_url"] == "https://ui.example.org"
    assert pipeline["processing_configs"] == ["default", "automated", "nightly"]


def test_the_pipelines_file_gives_them_as_json(tmp_path):
    extra = tmp_path / "pipelines.json"
    extra.write_text(
        json.dumps(
            [
                {
                    "slug": "east",
                    "url": "https://east.example.org",
                    "ui_url": "https://east-ui.example.org",
                    "processing_configs": ["automated"],
                }
            ]
        )
    )
    east = load_pipelines(first=FIRST, extra_file=str(extra))[1]
    assert east["ui_url"] == "https://east-ui.example.org"
    assert east["processing_configs"] == ["automated"]


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"ui_url": "ftp://ui.example.org"}, "ui_url must be an http:// or https:// URL"),
        ({"processing_configs": ["no spaces"]}, "'no spaces' must be 1-16 letters"),
        ({"processing_configs": ["x" * 17]}, "must be 1-16 letters"),
        ({"processing_configs": [1]}, "processing_configs must be a list of names"),
    ],
)
def test_a_bad_value_stops_start_up_with_the_field_named(entry, words):
    with pytest.raises(ImproperlyConfigured, match=words):
        load_pipelines(first={**FIRST, **entry}, extra_file="")


def test_the_typed_pipeline_fills_in_the_defaults():
    pipeline = PipelineConfig(slug="a", name="A", url="https://a.example.org", user="", key="")
    assert pipeline.ui_url == "https://a.example.org"
    assert pipeline.processing_configs == ("default", "automated")


def test_a_dashboard_account_is_read_from_the_pipelines_file(tmp_path, monkeypatch):
    monkeypatch.setenv("EAST_DASHBOARD_PASSWORD", "east-secret")
    secret_file = tmp_path / "west-password"
    secret_file.write_text("west-secret\n")
    extra = tmp_path / "pipelines.json"
    extra.write_text(
        json.dumps(
            [
                {
                    "slug": "east",
                    "url": "https://east.example.org",
                    "dashboard_user": "lookout",
                    "dashboard_password_env": "EAST_DASHBOARD_PASSWORD",
                },
                {
                    "slug": "west",
                    "url": "https://west.example.org",
                    "dashboard_user": "lookout",
                    "dashboard_password_file": str(secret_file),
                },
            ]
        )
    )
    first, east, west = load_pipelines(first=FIRST, extra_file=str(extra))
    assert not PipelineConfig(**first).full_view
    assert (east["dashboard_user"], east["dashboard_password"]) == ("lookout", "east-secret")
    assert west["dashboard_password"] == "west-secret"
    assert PipelineConfig(**east).full_view
    assert "east-secret" not in repr(PipelineConfig(**east))


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ({"dashboard_user": "u", "dashboard_password": "clear"}, "not a dashboard password"),
        ({"dashboard_user": "u"}, "needs both a user and a password"),
    ],
)
def test_a_dashboard_password_in_clear_or_alone_is_refused(tmp_path, entry, words):
    extra = tmp_path / "pipelines.json"
    extra.write_text(json.dumps([{"slug": "east", "url": "https://e.example.org", **entry}]))
    with pytest.raises(ImproperlyConfigured, match=words):
        load_pipelines(first=FIRST, extra_file=str(extra))


def test_the_first_pipelines_account_needs_both_user_and_password():
    with pytest.raises(ImproperlyConfigured, match="LOOKOUT_WORKFLOW_DASHBOARD_USER"):
        load_pipelines(first={**FIRST, "dashboard_user": "u"}, extra_file="")
    (pipeline,) = load_pipelines(
        first={**FIRST, "dashboard_user": "u", "dashboard_password": "p4ss"}, extra_file=""
    )
    assert PipelineConfig(**pipeline).full_view


def test_the_dashboard_password_is_a_redacted_secret(settings):
    from dashboard.lib.secret_redaction import redact_secrets

    settings.LOOKOUT_PIPELINES = [
        {**settings.LOOKOUT_PIPELINES[0], "dashboard_user": "u", "dashboard_password": "hunter2-pw"}
    ]
    assert "hunter2-pw" not in redact_secrets("login failed with hunter2-pw")
