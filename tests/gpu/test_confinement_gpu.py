"""On a GPU: a confined worker's /dev holds only its assigned GPU's node (besides the driver's shared ones), CUDA
names that GPU by UUID, and kernels run on it (`kbx.evaluation.confinement.gpus`). Run on a host of several GPUs,
each one is assigned in turn, so a wrong minor-to-ordinal mapping fails here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

import pytest

from kbx.evaluation.confinement import gpus

pytestmark = pytest.mark.gpu

_CHILD = textwrap.dedent("""
    import json, os, sys, tempfile
    from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split
    spec = ConfinementSpec(enabled=True, user_namespace=os.geteuid() != 0)
    split(spec)
    import torch
    confine(spec, tempfile.mkdtemp(dir="/dev/shm"))
    value = torch.arange(1 << 20, device="cuda", dtype=torch.float32).sum().item()
    print(json.dumps({
        "nodes": sorted(name for name in os.listdir("/dev") if name.startswith("nvidia")),
        "count": torch.cuda.device_count(),
        "uuid": str(torch.cuda.get_device_properties(0).uuid),
        "visible": os.environ.get("CUDA_VISIBLE_DEVICES"),
        "sum": value,
    }))
""")

LISTING = gpus.openable(gpus.read_listing())


@pytest.mark.skipif(not LISTING, reason="the driver lists no GPU")
@pytest.mark.parametrize("ordinal", range(len(LISTING)))
def test_a_confined_worker_sees_and_uses_only_its_assigned_gpu(ordinal: int):
    environ = {**os.environ, "CUDA_VISIBLE_DEVICES": str(ordinal), "TMPDIR": tempfile.gettempdir()}
    assignment = gpus.resolve(environ, LISTING)
    if assignment.gpus is None:
        pytest.skip(f"unresolved on this host: {assignment.why}")
    done = subprocess.run([sys.executable, "-c", _CHILD], env=environ, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    expected = LISTING[ordinal]
    numbered = [name for name in seen["nodes"] if gpus.is_numbered_node(name)]
    assert numbered == [f"nvidia{expected.minor}"], seen
    assert seen["count"] == 1 and seen["visible"] == expected.uuid
    assert expected.uuid.endswith(seen["uuid"]), (seen["uuid"], expected.uuid)  # torch prints it without "GPU-"
    assert seen["sum"] == float((1 << 20) * ((1 << 20) - 1) // 2)
