"""Normalizes the input and adds the residual afterwards: rms_norm(input) * weight + residual.

The post-norm ordering (add after the norm) instead of the pre-norm one the task defines (norm of the sum).
The returned residual h = input + residual is right; the normalized output is not, because the norm never
sees the residual stream, which here is several times larger than the input.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, out_ptr, h_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dtype = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(h_ptr + row + cols, (x + r).to(dtype), mask=mask)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row + cols, (x * rstd * w + r).to(dtype), mask=mask)


def add_rms_norm(input, residual, weight, eps=1e-06):
    x, r = input.contiguous(), residual.contiguous()
    out, h = torch.empty_like(x), torch.empty_like(x)
    n_cols = x.shape[-1]
    _add_rms_norm_kernel[(x.numel() // n_cols,)](x, r, weight.contiguous(), out, h, n_cols, eps,
                                                 BLOCK=triton.next_power_of_2(n_cols))
    return out, h
