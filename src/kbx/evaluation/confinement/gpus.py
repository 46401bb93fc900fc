"""Which GPU device nodes a candidate's view holds: those of the GPUs it was assigned, not the host's.

The driver lists every GPU it manages under `/proc/driver/nvidia/gpus/<bus id>/information`, with the minor number
of its `/dev/nvidia<minor>` node and its UUID. The worker's `CUDA_VISIBLE_DEVICES` names the GPUs assigned to it,
by CUDA ordinal or by UUID; a worker with none set computes on CUDA's first device, ordinal 0. An ordinal names the
n-th GPU in PCI bus order where CUDA enumerates in that order: when `CUDA_DEVICE_ORDER=PCI_BUS_ID`, or when every
GPU is the same model (CUDA's default order, fastest first, cannot tell identical GPUs apart by speed and keeps the
bus order). The view then holds only those GPUs' numbered nodes, and the worker names them by UUID, so that CUDA's
enumeration cannot pick another GPU whatever its order.

Where the assignment cannot be resolved (no driver listing, MIG instances, an ordinal on a host of mixed models in
the default order, an entry that names none of the GPUs whose node exists) every GPU's node stays in the view, as
before this module existed: the namespaces, UID and filter still hold; only the narrowing is lost, and `resolve`
says why (the worker's output carries it).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

DRIVER_LISTING = "/proc/driver/nvidia/gpus"


@dataclass(frozen=True)
class Gpu:
    """One GPU as the driver lists it."""

    bus: str
    """PCI bus id, the listing's directory name (`0000:18:00.0`)."""
    minor: int
    """The minor number of its device node, `/dev/nvidia<minor>`."""
    uuid: str
    """`GPU-` followed by the 8-4-4-4-12 hex groups."""
    model: str


@dataclass(frozen=True)
class Assignment:
    """The GPUs a worker may see, or why every GPU stays visible."""

    gpus: tuple[Gpu, ...] | None
    """The assigned GPUs, in the worker's order; None: unresolved, every node stays."""
    why: str = ""
    """Why the assignment is unresolved (empty when resolved)."""

    def nodes(self) -> tuple[str, ...] | None:
        """The numbered device nodes to keep, or None for all of them."""
        return None if self.gpus is None else tuple(f"/dev/nvidia{gpu.minor}" for gpu in self.gpus)

    def visible_devices(self) -> str | None:
        """`CUDA_VISIBLE_DEVICES` naming the assigned GPUs by UUID, or None to leave it as it is."""
        return None if self.gpus is None else ",".join(gpu.uuid for gpu in self.gpus)


def read_listing(root: str = DRIVER_LISTING) -> list[Gpu]:
    """The GPUs the driver lists under `root`, in PCI bus order; [] where there is no listing."""
    try:
        buses = sorted(os.listdir(root))
    except OSError:
        return []
    found = []
    for bus in buses:
        try:
            fields = _fields(Path(root, bus, "information").read_text())
            found.append(Gpu(bus=bus, minor=int(fields["Device Minor"]), uuid=fields["GPU UUID"],
                             model=fields.get("Model", "")))
        except (OSError, KeyError, ValueError):
            continue
    return found


def openable(listing: list[Gpu], dev: str = "/dev") -> list[Gpu]:
    """The listed GPUs whose node exists in `dev`: the only ones CUDA can enumerate, so ordinals count among them
    (a container may see the driver's listing of the whole host but the nodes of its own GPUs only)."""
    return [gpu for gpu in listing if os.path.exists(os.path.join(dev, f"nvidia{gpu.minor}"))]


def _fields(text: str) -> dict[str, str]:
    """`Key:   value` lines as a dict."""
    pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
    return {key.strip(): value.strip() for key, value in pairs}


def resolve(environ: Mapping[str, str], listing: list[Gpu]) -> Assignment:
    """The GPUs `environ`'s `CUDA_VISIBLE_DEVICES` assigns, among the driver's `listing`."""
    visible = environ.get("CUDA_VISIBLE_DEVICES")
    if visible is None:
        visible = "0"  # unpinned: the worker computes on `cuda`, CUDA's first device, as the trusted worker does
    if not listing:
        return Assignment(None, f"the driver lists no GPU under {DRIVER_LISTING}")
    by_uuid = {gpu.uuid.lower(): gpu for gpu in listing}
    ordinals_follow_bus = (environ.get("CUDA_DEVICE_ORDER") == "PCI_BUS_ID"
                           or len({gpu.model for gpu in listing}) == 1)
    chosen: list[Gpu] = []
    for entry in (e.strip() for e in visible.split(",")):
        if not entry or entry == "-1":
            break  # CUDA stops at the first invalid entry
        if entry.isdigit():
            if not ordinals_follow_bus:
                return Assignment(None, "ordinals on a host of mixed GPU models follow CUDA's own speed order")
            if int(entry) >= len(listing):
                return Assignment(None, f"CUDA_VISIBLE_DEVICES entry {entry} names no listed GPU")
            chosen.append(listing[int(entry)])
        elif entry.lower().startswith("gpu-"):
            matches = [gpu for uuid, gpu in by_uuid.items() if uuid.startswith(entry.lower())]
            if len(matches) != 1:
                return Assignment(None, f"CUDA_VISIBLE_DEVICES entry {entry} names {len(matches)} listed GPUs")
            chosen.append(matches[0])
        else:
            return Assignment(None, f"CUDA_VISIBLE_DEVICES entry {entry} is neither an ordinal nor a GPU UUID (MIG?)")
    return Assignment(tuple(chosen))


def is_numbered_node(name: str) -> bool:
    """Whether a /dev entry is one GPU's node (`nvidia3`), not a shared one (`nvidiactl`, `nvidia-uvm`)."""
    return name.startswith("nvidia") and name[len("nvidia"):].isdigit()
