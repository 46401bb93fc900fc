"""On the device: which step of confinement CUDA does not survive. Runs torch.cuda.init() in a subprocess after each
prefix of the steps (PID namespace; + view; + UID; + seccomp), printing what fails (or `ok`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import kbx
from kbx.evaluation.confinement.enter import default_hidden

SRC = str(Path(kbx.__file__).resolve().parent.parent)
CHILD = """
import os, sys, json, signal
sys.path.insert(0, {src!r})
from kbx.evaluation.confinement import libc, seccomp, view, warden
steps = json.loads(sys.argv[1]); job = sys.argv[2]
if "pid" in steps: warden.split(False)
import torch
if "view" in steps: view.build_view(view.plan_view(job, tuple(json.loads(sys.argv[3]))))
if "uid" in steps:
    os.setgroups([]); os.setresgid(65534, 65534, 65534); os.setresuid(65534, 65534, 65534)
if "seccomp" in steps: seccomp.install()
try:
    torch.cuda.init(); x = torch.ones(4, device="cuda"); print("ok", float(x.sum()))
except Exception as exc:
    print("FAIL", str(exc)[:300])
"""


def main() -> None:
    hidden = json.dumps(list(default_hidden()))
    for steps in (["pid"], ["pid", "view"], ["pid", "uid"], ["pid", "seccomp"], ["pid", "view", "uid"],
                  ["pid", "view", "uid", "seccomp"], ["view"], ["uid"], ["seccomp"]):
        job = tempfile.mkdtemp(prefix="kbx-job-", dir="/dev/shm")
        os.chmod(job, 0o777)  # the steps without a view still write here as uid 65534
        done = subprocess.run([sys.executable, "-I", "-c", CHILD.format(src=SRC), json.dumps(steps), job, hidden],
                              capture_output=True, text=True, check=False)
        print("+".join(steps), "->", (done.stdout.strip() or done.stderr.strip()[-400:]))


if __name__ == "__main__":
    main()
