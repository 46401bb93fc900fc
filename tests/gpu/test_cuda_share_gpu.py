"""On a GPU: large outputs reach the trusted worker as CUDA descriptors (`kbx.evaluation.cuda_share`), from a
process confined as a candidate worker is (its own PID namespace, another UID, seccomp), and are judged as strictly
as saved ones; correctness cases tune Triton's autotuner quickly (`kbx.evaluation.candidate.tuning`)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap

import pytest
import torch

from kbx.candidates.source import Candidate
from kbx.evaluation import cuda_share
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite

pytestmark = pytest.mark.gpu

_CHILD = textwrap.dedent("""
    import json, socket, sys, tempfile
    from kbx.evaluation.confinement.enter import ConfinementSpec, confine, split
    spec = ConfinementSpec(enabled=True)
    split(spec)
    import torch
    from kbx.evaluation import cuda_share
    confine(spec, tempfile.mkdtemp(dir="/dev/shm"))
    link = socket.socket(fileno=int(sys.argv[1]))
    value = torch.arange(3 << 20, device="cuda", dtype=torch.float32).remainder_(977.0).view(3, 1 << 20)
    export = cuda_share.Export(value)
    socket.send_fds(link, [json.dumps(export.block.to_json()).encode()], [export.fd])
    link.recv(8)
    export.close()
""")


def test_a_block_exported_by_a_confined_process_is_copied_out_intact():
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    child = subprocess.Popen([sys.executable, "-c", _CHILD, str(theirs.fileno())], pass_fds=[theirs.fileno()])
    theirs.close()
    message, fds, _, _ = socket.recv_fds(ours, 1 << 16, 4)
    block = cuda_share.SharedBlock.from_json(json.loads(message))
    got = cuda_share.import_copy(fds[0], block)
    ours.send(b"done")
    assert child.wait(timeout=60) == 0
    expected = torch.arange(3 << 20, device="cuda", dtype=torch.float32).remainder_(977.0).view(3, 1 << 20)
    assert torch.equal(got, expected) and block.size % cuda_share.granularity(0) == 0


def test_a_description_that_does_not_fit_its_block_is_refused():
    export = cuda_share.Export(torch.ones(1 << 20, device="cuda"))
    try:
        for forged in ({"nbytes": export.block.size + 4}, {"dtype": "os"}, {"shape": [1 << 21]}):
            raw = {**export.block.to_json(), **forged}
            with pytest.raises(cuda_share.CudaShareError):
                cuda_share.import_copy(socket.dup(export.fd), cuda_share.SharedBlock.from_json(raw))
    finally:
        export.close()


_LAST_ELEMENT_WRONG = '''
import torch
import triton
import triton.language as tl


@triton.jit
def _relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    y = tl.where(x < 0, 0, x)
    y = tl.where((offsets == n - 1) & (n > (1 << 26)), y + 1, y)
    tl.store(y_ptr + offsets, y, mask=offsets < n)


def relu(input):
    input = input.contiguous()
    out = torch.empty_like(input)
    n = input.numel()
    _relu[(triton.cdiv(n, 1024),)](input, out, n, BLOCK=1024)
    return out
'''


def test_bench_sized_outputs_go_over_as_descriptors_and_are_judged_as_strictly():
    """The solution passes every case, bench ones included; a kernel wrong in one element of bench-sized outputs
    only is caught there."""
    (relu,) = [t for t in load_suite() if t.name == "relu"]
    with Evaluator("cuda", Limits(timeout_s=300), timing=None) as evaluator:
        solution = evaluator.evaluate(relu, Candidate("solution", "relu", (relu.path / "solution.py").read_text()))
        assert solution.status.value == "PASSED", solution.message
        assert any(case.role == "bench" for case in solution.cases)
        wrong = evaluator.evaluate(relu, Candidate("last", "relu", _LAST_ELEMENT_WRONG))
    assert wrong.status.value not in ("PASSED", "CRASHED"), wrong.message
    assert "bench" in wrong.message or any(c.role == "bench" and c.status.value != "PASSED" for c in wrong.cases)


_AUTOTUNED = '''
import torch
import triton
import triton.language as tl


@triton.autotune(configs=[triton.Config({"BLOCK": b}) for b in (128, 256, 512, 1024, 2048, 4096)], key=["n"])
@triton.jit
def _relu(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    x = tl.load(x_ptr + offsets, mask=offsets < n)
    tl.store(y_ptr + offsets, tl.where(x < 0, 0, x), mask=offsets < n)


def relu(input):
    input = input.contiguous()
    out = torch.empty_like(input)
    n = input.numel()
    _relu[lambda meta: (triton.cdiv(n, meta["BLOCK"]),)](input, out, n)
    return out
'''


def test_an_autotuned_kernel_passes_with_quick_tuning():
    (relu,) = [t for t in load_suite() if t.name == "relu"]
    with Evaluator("cuda", Limits(timeout_s=300), timing=None) as evaluator:
        evaluation = evaluator.evaluate(relu, Candidate("tuned", "relu", _AUTOTUNED))
    assert evaluation.status.value == "PASSED", evaluation.message
