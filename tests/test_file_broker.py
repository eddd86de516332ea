"""The embedded default broker (config/broker.py): messages are written whole or not
at all, and a message that cannot be read is set aside instead of killing the worker."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest
from kombu import Connection

from config.broker import BROKEN_FOLDER, register


@pytest.fixture(autouse=True, scope="module")
def _control_folder_in_tmp(tmp_path_factory):
    """Kombu keeps its exchange bindings in ./control by default (one folder for the
    module, as a worker has one): not in the checkout."""
    before = os.getcwd()
    os.chdir(tmp_path_factory.mktemp("broker-cwd"))
    yield
    os.chdir(before)


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, str]:
    for name in ("queue", "processed"):
        (tmp_path / name).mkdir()
    return {
        "data_folder_in": str(tmp_path / "queue"),
        "data_folder_out": str(tmp_path / "queue"),
        "processed_folder": str(tmp_path / "processed"),
        "store_processed": False,
    }


def _connection(folders: dict[str, str]) -> Connection:
    register()
    return Connection("lookoutfs://", transport_options=folders)


def test_a_message_is_written_whole_under_its_final_name(folders):
    with _connection(folders) as connection:
        queue = connection.SimpleQueue("work")
        queue.put({"task": "one"})
        names = sorted(path.name for path in Path(folders["data_folder_in"]).iterdir())
        assert len(names) == 1 and names[0].endswith(".work.msg")  # no temporary file left
        assert queue.get(timeout=1).payload == {"task": "one"}
        queue.close()


def test_a_half_written_message_is_set_aside_and_the_next_one_is_read(folders, caplog):
    queue_folder = Path(folders["data_folder_in"])
    # What a producer killed mid-write leaves with Kombu's own transport; "0." sorts before
    # any message named by its time, whatever the clock says.
    (queue_folder / "0.work.msg").write_bytes(b'{"body": "eyJ0YXNr')
    # A write under way (or cut short) now: never read.
    (queue_folder / "2_partial.work.msg.partial").write_bytes(b'{"bo')
    with _connection(folders) as connection:
        queue = connection.SimpleQueue("work")
        queue.put({"task": "after the crash"})
        with caplog.at_level(logging.WARNING, logger="config.broker"):
            message = queue.get(timeout=1)
        queue.close()

    assert message.payload == {"task": "after the crash"}
    broken = queue_folder.parent / BROKEN_FOLDER
    assert [path.name for path in broken.iterdir()] == ["0.work.msg"]
    assert "0.work.msg could not be read" in caplog.text
    assert (queue_folder / "2_partial.work.msg.partial").exists()
