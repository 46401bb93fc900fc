"""An honest nan_to_num: libdevice's `isnan` / `isinf` classify each element (widened to fp32, exact for fp16 and
bf16), a `tl.where` chain picks the replacement (nan, posinf, neginf; the infinities default to the dtype's
largest finite values, taken from `torch.finfo`), and the result is stored in the input dtype. Flat grid over a
contiguous copy.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _nan_to_num_kernel(x_ptr, y_ptr, n, nan_val, pos_val, neg_val, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    is_nan = libdevice.isnan(x) != 0
    is_inf = libdevice.isinf(x) != 0
    y = tl.where(is_inf & (x > 0), pos_val, tl.where(is_inf, neg_val, x))
    y = tl.where(is_nan, nan_val, y)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    info = torch.finfo(input.dtype)
    pos = info.max if posinf is None else posinf
    neg = info.min if neginf is None else neginf
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n:
        BLOCK = 1024
        _nan_to_num_kernel[(triton.cdiv(n, BLOCK),)](x, out, n, float(nan), float(pos), float(neg), BLOCK=BLOCK)
    return out.view(input.shape)
