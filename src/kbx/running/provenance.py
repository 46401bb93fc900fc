"""Which code a run ran: the checkout's commit, marked when its tracked files differ from it."""

from __future__ import annotations

import subprocess
from pathlib import Path


def git_sha() -> str | None:
    """HEAD of the checkout kbx runs from, with `-dirty` when tracked files differ from it (a copied working tree,
    as on a lent GPU machine, keeps an old HEAD: the suffix says the SHA alone does not name the code)."""
    here = Path(__file__).resolve().parent
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, cwd=here)
        status = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                                text=True, timeout=10, cwd=here)
    except (OSError, subprocess.TimeoutExpired):
        return None
    sha = head.stdout.strip()
    if not sha:
        return None
    return f"{sha}-dirty" if status.returncode == 0 and status.stdout.strip() else sha
