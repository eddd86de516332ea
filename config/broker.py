"""The embedded default broker: Kombu's filesystem transport, made crash-safe.

Kombu writes a message file in place, so a process killed mid-write leaves a
half-written `.msg` file, and the next worker that reads it dies on start
(`JSONDecodeError`) and keeps dying. Here

- a message is written to a temporary name (which no reader picks up), flushed to disk,
  then renamed into place: a reader sees a whole message or none;
- a message that cannot be read anyway (left by an older version, or damaged on disk)
  is moved to a `broken/` folder beside the queue, with a warning naming it, and the
  worker goes on with the next one.

Registered as the `lookoutfs://` transport (see `config/celery.py`).
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import tempfile
import uuid
from pathlib import Path
from time import monotonic
from typing import Any

from kombu.exceptions import ChannelError
from kombu.transport import TRANSPORT_ALIASES, filesystem
from kombu.transport.virtual import Empty
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

log = logging.getLogger("config.broker")

SCHEME = "lookoutfs"
BROKEN_FOLDER = "broken"
# Temporary names do not end in `.<queue>.msg`, so no reader takes them.
PARTIAL_SUFFIX = ".partial"


class Channel(filesystem.Channel):
    def _put(self, queue: str, payload: Any, **kwargs: Any) -> None:  # type: ignore[override]
        name = f"{int(round(monotonic() * 1000))}_{uuid.uuid4()}.{queue}.msg"
        final = os.path.join(self.data_folder_out, name)
        partial = final + PARTIAL_SUFFIX
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.unlink(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue: str, timeout: float | None = None) -> Any:
        wanted = f"{queue}.msg"
        for name in sorted(os.listdir(self.data_folder_in)):
            if name.partition(".")[2] != wanted:
                continue
            source = os.path.join(self.data_folder_in, name)
            taken = os.path.join(self._taken_folder(), name)
            try:
                # Whoever moves it first owns it; another worker skips it.
                shutil.move(source, taken)
            except OSError:
                continue
            try:
                with open(taken, "rb") as handle:
                    payload = handle.read()
            except OSError as exc:
                raise ChannelError(f"Cannot read file {taken!r} from queue.") from exc
            try:
                message = loads(bytes_to_str(payload))
            except (ValueError, UnicodeDecodeError) as exc:
                self._set_aside(taken, name, exc)
                continue
            if not self.store_processed:
                os.remove(taken)
            return message
        raise Empty()

    def _taken_folder(self) -> str:
        return str(self.processed_folder if self.store_processed else tempfile.gettempdir())

    def _set_aside(self, path: str, name: str, exc: Exception) -> None:
        broken = Path(self.data_folder_in).parent / BROKEN_FOLDER
        try:
            broken.mkdir(parents=True, exist_ok=True)
            shutil.move(path, broken / name)
            where = str(broken / name)
        except OSError:
            os.remove(path)
            where = "deleted"
        log.warning(
            "broker message %s could not be read (%s: %s); set aside (%s), going on",
            name,
            type(exc).__name__,
            exc,
            where,
        )


class Transport(filesystem.Transport):
    Channel = Channel
    driver_type = SCHEME
    driver_name = SCHEME


def register() -> None:
    """Make `lookoutfs://` a broker URL Kombu knows."""
    TRANSPORT_ALIASES.setdefault(SCHEME, "config.broker:Transport")
