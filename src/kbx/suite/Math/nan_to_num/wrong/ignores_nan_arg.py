"""Always replaces NaN by 0.0, ignoring the `nan` argument.

The infinities and their dtype-dependent defaults are handled correctly and the default nan=0.0 passes, but nan=1.5
and nan=-2.0 are never applied.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _nan_to_num_kernel(x_ptr, y_ptr, n, posinf_value, neginf_value, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.where(x != x, 0.0, x)
    y = tl.where(x == float("inf"), posinf_value, y)
    y = tl.where(x == float("-inf"), neginf_value, y)
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    info = torch.finfo(x.dtype)
    posinf_value = info.max if posinf is None else float(posinf)
    neginf_value = info.min if neginf is None else float(neginf)
    _nan_to_num_kernel[(triton.cdiv(n, 1024),)](x, out, n, posinf_value, neginf_value, BLOCK=1024)
    return out
