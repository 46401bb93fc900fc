"""Divides the sum of squares by the padded block width instead of the row length.

The row is loaded into a power-of-two block with zero padding, and the mean is taken as tl.sum(h*h) / BLOCK.
The sum itself is right (padding lanes hold zeros), but for a row of 4097 the block is 8192 wide and the RMS
comes out ~sqrt(2) too small. Correct only when the row length is a power of two.
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
    h = (x + r).to(dtype)
    tl.store(h_ptr + row + cols, h, mask=mask)
    hf = h.to(tl.float32)
    rstd = tl.rsqrt(tl.sum(hf * hf, axis=0) / BLOCK + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row + cols, (hf * rstd * w).to(dtype), mask=mask)


def add_rms_norm(input, residual, weight, eps=1e-06):
    x, r = input.contiguous(), residual.contiguous()
    out, h = torch.empty_like(x), torch.empty_like(x)
    n_cols = x.shape[-1]
    _add_rms_norm_kernel[(x.numel() // n_cols,)](x, r, weight.contiguous(), out, h, n_cols, eps,
                                                 BLOCK=triton.next_power_of_2(n_cols))
    return out, h
