"""Where runs live: the SQLite store, its cache keys, and exports."""

from __future__ import annotations

import os
from pathlib import Path

STORE_ENV = "KBX_STORE"


def default_store_path() -> Path:
    """`$KBX_STORE`, else `~/.local/share/kbx/kbx.db`."""
    configured = os.environ.get(STORE_ENV)
    return Path(configured) if configured else Path.home() / ".local" / "share" / "kbx" / "kbx.db"
