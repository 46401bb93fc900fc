"""The candidate's filesystem view: what exists, what is read-only, and the one place it may write.

Built as an allow-list on an empty tmpfs, then made the process's root with pivot_root: nothing is visible unless
listed here. Read-only at their own paths: the system directories (`/usr`, `/etc`, `/lib*`, `/bin`, `/sbin`,
`/sys`), the Python installation (prefixes and every `sys.path` entry but the one holding kbx's source), and the
CUDA directories the environment names. Fresh and private: `/proc` (this PID namespace's processes only), `/dev`
(the standard character devices, the GPU driver's shared nodes and the assigned GPUs' own nodes: `gpus`),
`/dev/shm`, `/tmp`. Writable: the job directory, at the same absolute path as outside, so no path in the worker
changes meaning. Paths to hide (kbx's source, the checkout, the orchestrator's home) are covered with an empty
tmpfs wherever a listed directory contains them."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from kbx.evaluation.confinement import gpus, libc

SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/sys")
_DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_ENV_DIRS = ("CUDA_HOME", "CUDA_PATH", "TRITON_PTXAS_PATH", "TRITON_LIBCUDA_PATH")
_MOUNT_OPTIONS = {
    "nosuid": libc.MS_NOSUID, "nodev": libc.MS_NODEV, "noexec": libc.MS_NOEXEC,
    "noatime": 1 << 10, "nodiratime": 1 << 11, "relatime": 1 << 21,
}
"""Per-mount flags a read-only remount must keep (a user namespace may not clear the locked ones)."""


@dataclass(frozen=True)
class ViewPlan:
    """What the candidate sees, resolved in the worker before any candidate code runs."""

    job_dir: str
    """The job directory: the only writable place besides the private /tmp and /dev/shm."""
    read_only: tuple[str, ...]
    """Directories bound read-only at their own (real) paths, outermost first, none inside another."""
    links: tuple[tuple[str, str], ...]
    """Symbolic links recreated in the view (path, target): `/bin -> usr/bin` on merged-/usr systems."""
    hidden: tuple[str, ...]
    """Paths covered by an empty tmpfs where a read-only directory contains them."""
    devices: tuple[str, ...]
    """Device nodes (and /dev/nvidia-caps) bound into the private /dev."""
    cuda_visible: str | None = None
    """`CUDA_VISIBLE_DEVICES` for the confined worker (the assigned GPUs by UUID); None leaves it as it is."""
    gpu_note: str = ""
    """Why every GPU's node is in the view, where there are GPUs and the assignment could not be resolved."""


def plan_view(job_dir: str, hidden: tuple[str, ...] = ()) -> ViewPlan:
    """The view for the job in `job_dir`, from this process's Python and environment. `hidden`: paths that must
    not be visible even where a read-only directory holds them (kbx's own package is always among them)."""
    import kbx

    package = os.path.realpath(os.path.dirname(kbx.__file__))
    source_root = os.path.dirname(package)
    hide = {os.path.realpath(h) for h in hidden} | {package}
    wanted: list[str] = []
    links: list[tuple[str, str]] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            links.append((path, os.readlink(path)))
        wanted.append(path)
    python_dirs = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *sys.path]
    for path in python_dirs:
        if path and os.path.isdir(path) and os.path.realpath(path) != source_root:
            wanted.append(path)
    for name in _ENV_DIRS:
        value = os.environ.get(name)
        if value:
            wanted.append(value if os.path.isdir(value) else os.path.dirname(value))
    wanted += [p for p in os.environ.get("LD_LIBRARY_PATH", "").split(":") if p]
    assignment = gpus.resolve(os.environ, gpus.openable(gpus.read_listing()))
    nodes = device_nodes("/dev", assignment.nodes())
    return ViewPlan(
        job_dir=os.path.realpath(job_dir),
        read_only=_outermost(os.path.realpath(p) for p in wanted if os.path.exists(p)),
        links=tuple(links),
        hidden=tuple(sorted(hide)),
        devices=nodes,
        cuda_visible=assignment.visible_devices(),
        gpu_note=assignment.why if any(gpus.is_numbered_node(os.path.basename(n)) for n in nodes) else "",
    )


def _outermost(paths: Iterable[str]) -> tuple[str, ...]:
    """The distinct paths, dropping those inside another (a recursive bind of the outer one shows them)."""
    kept: list[str] = []
    for path in sorted(set(paths), key=lambda p: (p.count("/"), p)):
        if not any(path == k or path.startswith(k.rstrip("/") + "/") for k in kept):
            kept.append(path)
    return tuple(sorted(kept))


def device_nodes(dev: str, gpu_nodes: tuple[str, ...] | None) -> tuple[str, ...]:
    """The nodes of `dev` to bind: the standard ones, the GPU driver's shared nodes (`nvidiactl`, `nvidia-uvm`,
    ...) and of the GPUs' own nodes those in `gpu_nodes` (all of them where it is None)."""
    nodes = [f"{dev}/{name}" for name in _DEVICES]
    try:
        names = sorted(name for name in os.listdir(dev) if name.startswith("nvidia"))
    except OSError:
        names = []
    keep = None if gpu_nodes is None else {os.path.basename(node) for node in gpu_nodes}
    nodes += [f"{dev}/{name}" for name in names if keep is None or not gpus.is_numbered_node(name) or name in keep]
    return tuple(n for n in nodes if os.path.exists(n))


def build_view(plan: ViewPlan) -> None:
    """Enter new mount, network, IPC and UTS namespaces and make `plan`'s view this process's root. Needs
    CAP_SYS_ADMIN in the current user namespace; every other process keeps its own view."""
    libc.unshare(libc.CLONE_NEWNS | libc.CLONE_NEWNET | libc.CLONE_NEWIPC | libc.CLONE_NEWUTS)
    libc.mount(None, "/", None, libc.MS_REC | libc.MS_PRIVATE)
    root = os.path.join(plan.job_dir, ".view")
    os.makedirs(root, exist_ok=True)
    libc.mount("tmpfs", root, "tmpfs", libc.MS_NOSUID | libc.MS_NODEV, "mode=0755,size=16m")
    # The private file systems first, so that what is bound afterwards lands on top of them: a Python installation
    # or a job directory may well live under /tmp or /dev/shm.
    _private_dev(root, plan.devices)
    _tmpfs(root + "/tmp", "mode=1777")
    os.makedirs(root + "/proc", exist_ok=True)
    libc.mount("proc", root + "/proc", "proc", libc.MS_NOSUID | libc.MS_NODEV | libc.MS_NOEXEC)
    for path in plan.read_only:
        _bind(path, root + path, recursive=True)
    for path, target in plan.links:
        if not os.path.lexists(root + path):
            os.symlink(target, root + path)
    _bind(plan.job_dir, root + plan.job_dir, recursive=False)
    for path in plan.hidden:
        if os.path.isdir(root + path) and any(path.startswith(p.rstrip("/") + "/") for p in plan.read_only):
            libc.mount("tmpfs", root + path, "tmpfs", libc.MS_NOSUID | libc.MS_NODEV | libc.MS_RDONLY, "size=4k,mode=0")
    os.makedirs(root + "/.old")
    libc.pivot_root(root, root + "/.old")
    os.chdir("/")
    libc.umount2("/.old", libc.MNT_DETACH)
    os.rmdir("/.old")
    _read_only_except(writable={plan.job_dir, "/tmp", "/dev/shm", "/proc"}, devices=set(plan.devices))
    socket.sethostname("kbx-candidate")  # in its own UTS namespace: the host's name does not show


def _bind(source: str, target: str, recursive: bool) -> None:
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        Path(target).touch()
    libc.mount(source, target, None, libc.MS_BIND | (libc.MS_REC if recursive else 0))


def _tmpfs(target: str, options: str) -> None:
    os.makedirs(target, exist_ok=True)
    libc.mount("tmpfs", target, "tmpfs", libc.MS_NOSUID | libc.MS_NODEV, options)


def _private_dev(root: str, devices: tuple[str, ...]) -> None:
    """A /dev holding only `devices` (bound from the real /dev), a private /dev/shm and the usual links."""
    os.makedirs(root + "/dev", exist_ok=True)
    libc.mount("tmpfs", root + "/dev", "tmpfs", libc.MS_NOSUID, "mode=0755,size=64k")
    for node in devices:
        _bind(node, root + node, recursive=True)
    _tmpfs(root + "/dev/shm", "mode=1777")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")


def mounts() -> list[tuple[str, set[str]]]:
    """(mount point, per-mount options) of every mount this process sees, from /proc/self/mountinfo."""
    found = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        fields = line.split()
        point = fields[4].encode().decode("unicode_escape") if "\\" in fields[4] else fields[4]
        found.append((point, set(fields[5].split(","))))
    return found


def _read_only_except(writable: set[str], devices: set[str]) -> None:
    for point, options in mounts():
        if point in writable or point in devices or point.startswith("/proc/"):
            continue
        flags = libc.MS_REMOUNT | libc.MS_BIND | libc.MS_RDONLY
        for option in options:
            flags |= _MOUNT_OPTIONS.get(option, 0)
        libc.mount(None, point, None, flags)
