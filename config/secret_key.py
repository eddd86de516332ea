"""The secret key of an install that was given none: made once, kept in the var folder.

Without SECRET_KEY (and outside production, which refuses to start without one), the
first process to start writes a random key to `<var>/secret_key` with mode 0600; every
later start, and the worker and beat beside it, read the same file. So two installs never
share a key, and sessions and wall cookies survive a restart.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import tempfile
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured

FILE_NAME = "secret_key"
MIN_LENGTH = 50


def _read(path: Path) -> str:
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        # Readable by others: tighten it rather than keep serving a key anyone may read.
        path.chmod(0o600)
    key = path.read_text(encoding="utf-8").strip()
    if len(key) < MIN_LENGTH:
        raise ImproperlyConfigured(
            f"{path} holds no usable secret key (fewer than {MIN_LENGTH} characters); "
            "delete it to have a new one made, or set SECRET_KEY"
        )
    return key


def generated_secret_key(var_dir: Path) -> str:
    """The key in `var_dir/secret_key`, written first (mode 0600) if there is none."""
    path = var_dir / FILE_NAME
    if path.exists():
        return _read(path)
    # Written to a private temporary file, then linked into place: a process starting at
    # the same moment either wins the link or reads the winner's complete file.
    descriptor, temporary = tempfile.mkstemp(dir=var_dir, prefix=".secret_key.")
    try:
        os.fchmod(descriptor, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(secrets.token_urlsafe(64) + "\n")
        with contextlib.suppress(FileExistsError):  # another process made it first
            os.link(temporary, path)
    finally:
        os.unlink(temporary)
    return _read(path)
