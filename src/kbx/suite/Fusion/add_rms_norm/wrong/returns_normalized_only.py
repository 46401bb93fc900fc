"""Returns only the normalized output and drops the updated residual.

The kernel computes h = input + residual and normalizes it correctly, but treats the add as a private
intermediate: it neither stores h nor returns it. The next transformer block needs h as its residual, which
is why the fused op returns (out, h); a single tensor is the wrong number of outputs.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_SHAPE"


@triton.jit
def _add_rms_norm_kernel(x_ptr, r_ptr, w_ptr, out_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(out_ptr.dtype.element_ty).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(h * h, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + row + cols, (h * rstd * w).to(out_ptr.dtype.element_ty), mask=mask)


def add_rms_norm(input, residual, weight, eps=1e-06):
    x, r = input.contiguous(), residual.contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    _add_rms_norm_kernel[(x.numel() // n_cols,)](x, r, weight.contiguous(), out, n_cols, eps,
                                                 BLOCK=triton.next_power_of_2(n_cols))
    return out
