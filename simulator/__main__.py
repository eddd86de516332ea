"""`python -m simulator [options]`: serve both fake services until stopped."""

from __future__ import annotations

import sys
from collections.abc import Sequence

from simulator.config import config_from_args


def main(argv: Sequence[str] | None = None) -> int:
    # Imported here so `--help` answers without building any state.
    from simulator.server import serve

    return serve(config_from_args(argv))


if __name__ == "__main__":
    sys.exit(main())
