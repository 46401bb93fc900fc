"""The candidate worker's audit hook denies the network, /proc/<pid>/mem and other jobs' files, and records each
denial. A hook cannot be removed, so each test installs it in a fresh interpreter."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parents[3] / "src"

SCRIPT = r"""
import json, os, socket, sys
from pathlib import Path
from kbx.evaluation.candidate.audit import install_audit_hook

scratch = Path(sys.argv[1])
own, other = scratch / "kbx-job-own", scratch / "kbx-job-other"
denied = []
install_audit_hook(own, denied)
outcomes = {}

def attempt(name, action):
    try:
        action()
        outcomes[name] = "allowed"
    except PermissionError:
        outcomes[name] = "denied"

attempt("write own file", lambda: (own / "out.pt").write_text("x"))
attempt("list own directory", lambda: os.listdir(own))
attempt("read another job's file", lambda: open(other / "spec.json").read())
attempt("list another job", lambda: os.listdir(other))
attempt("remove another job's file", lambda: os.remove(other / "spec.json"))
attempt("list the scratch directory", lambda: os.listdir(scratch))
attempt("a sibling that only looks like a job", lambda: open(scratch / "notes.txt").read())
attempt("open /proc/self/mem", lambda: open("/proc/self/mem", "rb"))
attempt("connect", lambda: socket.socket().connect(("127.0.0.1", 9)))
attempt("look up a name", lambda: socket.getaddrinfo("localhost", 80))
print(json.dumps({"outcomes": outcomes, "denied": denied}))
"""


def test_the_hook_denies_what_it_must_and_records_it(tmp_path):
    for job in ("kbx-job-own", "kbx-job-other"):
        (tmp_path / job).mkdir()
    (tmp_path / "kbx-job-other" / "spec.json").write_text("{}")
    (tmp_path / "notes.txt").write_text("")
    result = subprocess.run([sys.executable, "-I", "-c", f"import sys; sys.path.insert(0, {str(SRC)!r})\n" + SCRIPT,
                             str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr[-2000:]
    report = json.loads(result.stdout)
    assert report["outcomes"] == {
        "write own file": "allowed", "list own directory": "allowed",
        "read another job's file": "denied", "list another job": "denied", "remove another job's file": "denied",
        "list the scratch directory": "denied", "a sibling that only looks like a job": "allowed",
        "open /proc/self/mem": "denied", "connect": "denied", "look up a name": "denied",
    }
    assert len(report["denied"]) == 7
    assert any("another job's file" in d and "spec.json" in d for d in report["denied"])
    assert "socket.connect" in report["denied"]
    assert (tmp_path / "kbx-job-other" / "spec.json").exists()
