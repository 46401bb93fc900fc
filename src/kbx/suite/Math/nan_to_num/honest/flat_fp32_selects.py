"""An honest nan_to_num on a flat contiguous walk: three selects in fp32, the defaults taken from torch.finfo.

The wrapper resolves posinf/neginf = None to the input dtype's largest and most negative finite values
(`torch.finfo(input.dtype)`), so fp16 and bf16 get their own limits; the kernel widens x to fp32 (lossless),
replaces NaN (x != x), +inf and -inf, and rounds once to the dtype, which rounds the replacements as PyTorch does.
The solution keeps dense inputs in their own memory order; this one copies to contiguous first.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _nan_to_num_flat(x_ptr, y_ptr, n, nan_value, posinf_value, neginf_value, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x != x, nan_value, x)
    y = tl.where(x == float("inf"), posinf_value, y)
    y = tl.where(x == float("-inf"), neginf_value, y)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    info = torch.finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 1024
    _nan_to_num_flat[(triton.cdiv(n, BLOCK),)](x, out, n, float(nan), float(posinf), float(neginf), BLOCK=BLOCK)
    return out
