"""The candidate worker's audit hook (PEP 578), installed before torch or the candidate is imported.

It denies, inside the candidate's process: network access (connect, bind, name lookups), opening a process's
memory through /proc (`/proc/self/mem` writes any byte of the process with builtins alone), and any look at other
jobs' files: listing the scratch root that holds every job directory, or opening, listing or removing anything in
a job directory other than this worker's own. Denials raise PermissionError where they happen and are recorded, so
a candidate that catches the error is still rejected (`runtime.denied` through `Guards`).

An audit hook cannot be removed from Python code, but code clever enough (native code, which the static rules
forbid) can bypass it; the verdict never depends on the hook alone.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

JOB_PREFIX = "kbx-job-"
"""Name prefix of every job directory (`kbx.evaluation.orchestrator.pipeline` creates them)."""

_NETWORK = frozenset({"socket.connect", "socket.bind", "socket.getaddrinfo", "socket.gethostbyname"})
_PROCESS_MEMORY = frozenset({"mem", "pagemap"})
"""/proc/<pid>/mem reads and writes any byte of a process with builtins alone."""
_PATH_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "os.remove", "os.rename", "os.rmdir", "shutil.rmtree"})


def install_audit_hook(job_dir: Path, denied: list[str]) -> None:
    """Install the hook for the job in `job_dir`; it appends a description of each denial to `denied`."""
    own = os.path.normpath(os.path.abspath(job_dir))
    scratch = os.path.dirname(own)
    others = os.path.join(scratch, JOB_PREFIX)

    def deny(what: str) -> None:
        denied.append(what)
        raise PermissionError(f"kbx sandbox: {what} is not allowed")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event in _NETWORK:
            deny(event)
        elif event in _PATH_EVENTS and args:
            path = _path(args[0])
            if path is None:
                return
            if path.startswith("/proc/") and os.path.basename(path) in _PROCESS_MEMORY:
                deny(f"{event} of {path}")
            elif path == scratch and event != "open":
                deny(f"{event} of the scratch directory {path}")
            elif path.startswith(others) and not (path == own or path.startswith(own + os.sep)):
                deny(f"{event} of another job's file {path}")

    sys.addaudithook(hook)


def _path(value: Any) -> str | None:
    if isinstance(value, int):
        return None  # an open file descriptor
    try:
        text = os.fsdecode(value)
    except TypeError:
        return None
    return os.path.normpath(os.path.abspath(text))
