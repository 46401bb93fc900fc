"""An honest quantize_fp8_e4m3 that leaves the rounding to Triton's own cast: y = fp32(x) / scale, clamped to
±448 with `tl.clamp`, stored with `y.to(tl.float8e4nv)` (a GPU's `cvt.rn.satfinite`: nearest, ties to even,
subnormals included) into a torch.float8_e4m3fn output; the input is a contiguous copy, one lane per element.

Regression (2026-11-28): the CPU interpreter's fp32 -> fp8 cast rounded ties up, truncated subnormals and carried
into the exponent field by OR, so this kernel was MISMATCH on 232 of the smoke workload's 1000 elements; the
interpreter now casts to fp8 as the GPU does (`kbx.evaluation.candidate.float8`).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _to_fp8(x_ptr, o_ptr, n, scale, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    x = tl.load(x_ptr + offs, mask=m, other=0.0).to(tl.float32)
    y = tl.clamp(x / scale, -448.0, 448.0)
    tl.store(o_ptr + offs, y.to(tl.float8e4nv), mask=m)


def quantize_fp8_e4m3(input, scale):
    x = input.contiguous().view(-1)
    out = torch.empty(input.shape, dtype=torch.float8_e4m3fn, device=input.device)
    n = x.numel()
    if n:
        _to_fp8[(triton.cdiv(n, 1024),)](x, out, n, float(scale), BLOCK=1024)
    return out
