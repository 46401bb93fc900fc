"""Adds the linear layer's bias after the norm: layer_norm(input + residual) + bias.

The matmul bias belongs to the matmul output, before the residual add and the norm; folding it into the
norm's shift instead looks harmless (both are per-column vectors) but the norm would have removed its mean
and scaled it. The returned residual h is right; the normalised output is off by about the bias itself.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, lb_ptr, r_ptr, w_ptr, b_ptr, out_ptr, h_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    dtype = out_ptr.dtype.element_ty
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    lb = tl.load(lb_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    r = tl.load(r_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    h = ((x + lb).to(dtype).to(tl.float32) + r).to(dtype)
    tl.store(h_ptr + row + cols, h, mask=mask)
    v = (x + r).to(dtype).to(tl.float32)
    mean = tl.sum(v, axis=0) / n_cols
    diff = tl.where(mask, v - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(diff * diff, axis=0) / n_cols + eps)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    y = diff * rstd * w + b + lb
    tl.store(out_ptr + row + cols, y.to(dtype), mask=mask)


def add_bias_residual_layer_norm(input, bias, residual, weight, ln_bias, eps=1e-05):
    x, r = input.contiguous(), residual.contiguous()
    out, h = torch.empty_like(x), torch.empty_like(x)
    n_cols = x.shape[-1]
    _kernel[(x.numel() // n_cols,)](x, bias.contiguous(), r, weight.contiguous(), ln_bias.contiguous(), out, h,
                                    n_cols, eps, BLOCK=triton.next_power_of_2(n_cols))
    return out, h
