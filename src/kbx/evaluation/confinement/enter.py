"""Confining the candidate worker, step by step, in the order the kernel allows (DESIGN §4).

The orchestrator says what it wants in a `ConfinementSpec` (part of the job spec); the worker calls `split` first
thing (the warden stays outside), imports what it needs while it can still see kbx, then calls `confine` before it
imports the candidate. `describe` is what each result row records.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from typing import Any

from kbx.evaluation.confinement import libc, seccomp, view, warden

CANDIDATE_UID = 65534
"""The UID (and GID) a candidate runs as when kbx runs as root: `nobody` on Debian and Ubuntu, owning no file."""


@dataclass(frozen=True)
class ConfinementSpec:
    """How to confine one candidate worker; crosses from the orchestrator to the worker in its job spec."""

    enabled: bool = True
    """False only with `--unconfined`: the worker then runs as the orchestrator's UID, in the host's namespaces."""
    user_namespace: bool = False
    """Map the orchestrator's UID into a user namespace (kbx not running as root) instead of changing UID."""
    uid: int = CANDIDATE_UID
    gid: int = CANDIDATE_UID
    hidden: tuple[str, ...] = ()
    """Paths to hide even inside read-only directories (the checkout, the orchestrator's home)."""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @staticmethod
    def from_json(raw: dict[str, Any]) -> ConfinementSpec:
        return ConfinementSpec(**{**raw, "hidden": tuple(raw.get("hidden", ()))})

    def describe(self) -> str:
        """One line for the result row: what the candidate ran under."""
        if not self.enabled:
            return "none (--unconfined)"
        who = "own user namespace, no capabilities" if self.user_namespace else f"uid {self.uid}"
        return f"namespaces pid+mount+net+ipc+uts; {who}; allow-listed read-only view; seccomp; no_new_privs"


def for_this_process(enabled: bool, hidden: tuple[str, ...] = ()) -> ConfinementSpec:
    """The spec an orchestrator running as this process's user asks for."""
    return ConfinementSpec(enabled=enabled, user_namespace=os.geteuid() != 0, hidden=hidden)


def split(spec: ConfinementSpec) -> None:
    """Step 1, before anything else: the warden stays, the child (returned to) becomes the worker."""
    if spec.enabled:
        warden.split(spec.user_namespace)


def confine(spec: ConfinementSpec, job_dir: str) -> None:
    """Step 2, after the worker's own imports and before the candidate's: the view, the UID, the filter."""
    if not spec.enabled:
        return
    plan = view.plan_view(job_dir, spec.hidden)
    if not spec.user_namespace:
        _give_away(job_dir, spec.uid, spec.gid)
    cwd = os.getcwd()
    view.build_view(plan)
    if plan.cuda_visible is not None:  # by UUID: the view holds only these GPUs' nodes, whatever CUDA's order
        os.environ["CUDA_VISIBLE_DEVICES"] = plan.cuda_visible
    if plan.gpu_note:  # in the worker's output, which the result row keeps
        sys.stderr.write(f"kbx: every GPU's device node is in the candidate's view: {plan.gpu_note}\n")
    # pivot_root left the process at the new root; a worker's directory is inside its job directory, at the same
    # path in the view, while a directory outside it (where a probe was started) need not exist there.
    os.chdir(cwd if os.path.isdir(cwd) else job_dir)
    if spec.user_namespace:
        libc.drop_capabilities()
    else:
        os.setgroups([])
        os.setresgid(spec.gid, spec.gid, spec.gid)
        os.setresuid(spec.uid, spec.uid, spec.uid)
    libc.prctl(libc.PR_SET_PDEATHSIG, signal.SIGKILL)  # a change of credentials cleared it
    seccomp.install()


def _give_away(job_dir: str, uid: int, gid: int) -> None:
    """Hand the job directory's contents to the candidate's UID (the only files it may write)."""
    for folder, dirs, files in os.walk(job_dir):
        os.chown(folder, uid, gid)
        for name in dirs + files:
            os.chown(os.path.join(folder, name), uid, gid, follow_symlinks=False)


def default_hidden() -> tuple[str, ...]:
    """What an orchestrator hides besides kbx's package: its checkout (when kbx runs from one) and its home."""
    import kbx

    hidden = []
    checkout = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(kbx.__file__))))
    if os.path.exists(os.path.join(checkout, "pyproject.toml")):
        hidden.append(checkout)
    home = os.path.expanduser("~")
    if home not in ("/", ""):
        hidden.append(home)
    return tuple(hidden)


@functools.cache
def unavailable(spec: ConfinementSpec) -> str | None:
    """Why this machine cannot confine a candidate as `spec` asks (None when it can): a scratch process goes through
    every step (namespaces, view, UID, filter) and reports. Cached per process."""
    if not spec.enabled:
        return None
    import kbx

    src = os.path.dirname(os.path.dirname(os.path.realpath(kbx.__file__)))
    job_dir = tempfile.mkdtemp(prefix="kbx-probe-")
    code = (
        f"import sys; sys.path.insert(0, {src!r}); "
        "from kbx.evaluation.confinement.enter import _probe; _probe(sys.argv[1], sys.argv[2])"
    )
    try:
        done = subprocess.run(
            [sys.executable, "-I", "-c", code, json.dumps(spec.to_json()), job_dir],
            capture_output=True, text=True, timeout=60, check=False,
        )
    finally:
        shutil.rmtree(job_dir, ignore_errors=True)
    if done.returncode == 0 and done.stdout.strip() == "confined":
        return None
    lines = (done.stdout + done.stderr).strip().splitlines()
    return lines[-1] if lines else f"the probe exited with code {done.returncode}"


def _probe(raw: str, job_dir: str) -> None:
    spec = ConfinementSpec.from_json(json.loads(raw))
    split(spec)
    try:
        confine(spec, job_dir)
    except OSError as exc:
        print(f"{type(exc).__name__}: {exc}", flush=True)
        os._exit(1)
    print("confined", flush=True)
