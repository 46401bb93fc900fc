"""Divides the sum of squared deviations by N - 1 (the unbiased, sample variance) instead of N.

torch.var defaults to the unbiased estimator, layer norm does not. The outputs shrink by sqrt((N-1)/N): 0.5%
on rows of 100, 0.4% on 127. Under the bf16 tolerance (1.6%), many times the fp32 one.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _add_layer_norm_kernel(x_ptr, r_ptr, w_ptr, b_ptr, out_ptr, h_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dtype = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    h = (x + r).to(dtype)
    tl.store(h_ptr + row + cols, h, mask=mask)
    v = h.to(tl.float32)
    mean = tl.sum(v, axis=0) / n_cols
    diff = tl.where(mask, v - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(diff * diff, axis=0) / (n_cols - 1) + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = diff * rstd * w + b
    tl.store(out_ptr + row + cols, y.to(dtype), mask=mask)


def add_layer_norm(input, residual, weight, bias, eps=1e-05):
    x, r = input.contiguous(), residual.contiguous()
    out, h = torch.empty_like(x), torch.empty_like(x)
    n_cols = x.shape[-1]
    _add_layer_norm_kernel[(x.numel() // n_cols,)](x, r, weight.contiguous(), bias.contiguous(), out, h, n_cols,
                                                   eps, BLOCK=triton.next_power_of_2(n_cols))
    return out, h
