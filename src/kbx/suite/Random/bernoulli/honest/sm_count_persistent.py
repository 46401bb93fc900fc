"""An honest bernoulli sized to the GPU, as GPU-only wrappers are written: a persistent grid of four programs per SM,
the SM count read with `torch.cuda.get_device_properties(p.device).multi_processor_count` (unguarded), each program
striding over the contiguous copy with `tl.range` and drawing `tl.rand(seed, i)` < p at the flat index i.

Regression (2026-11-28): on the CPU the device query raised "Torch not compiled with CUDA enabled", RUNTIME_ERROR for
a reason of the machine, not of the kernel; the interpreter now answers device queries for an H200
(`kbx.evaluation.candidate.device_queries`).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bern(p_ptr, o_ptr, n, seed, BLOCK: tl.constexpr):
    for start in tl.range(tl.program_id(0) * BLOCK, n, tl.num_programs(0) * BLOCK):
        offs = start + tl.arange(0, BLOCK)
        m = offs < n
        p = tl.load(p_ptr + offs, mask=m, other=0.0).to(tl.float32)
        tl.store(o_ptr + offs, (tl.rand(seed, offs) < p).to(o_ptr.dtype.element_ty), mask=m)


def bernoulli(input, seed=0):
    p = input.contiguous()
    out = torch.empty_like(p)
    n = p.numel()
    sms = torch.cuda.get_device_properties(p.device).multi_processor_count
    grid = (max(1, min(4 * sms, triton.cdiv(n, 1024))),)
    _bern[grid](p, out, n, seed, BLOCK=1024)
    return out
