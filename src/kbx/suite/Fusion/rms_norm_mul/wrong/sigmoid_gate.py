"""Gates with sigmoid(gate) instead of silu(gate) = gate * sigmoid(gate).

The classic GLU gate where the task has the SiLU (swish) one: the factor gate is missing, so outputs are off
everywhere except where gate happens to be 1.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _rms_norm_mul_kernel(x_ptr, w_ptr, g_ptr, y_ptr, n_cols, eps, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    g = tl.load(g_ptr + row + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.rsqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    y = x * rstd * w / (1.0 + tl.exp(-g))
    tl.store(y_ptr + row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm_mul(input, weight, gate, eps=1e-06):
    x, g = input.contiguous(), gate.contiguous()
    out = torch.empty_like(x)
    n_cols = x.shape[-1]
    _rms_norm_mul_kernel[(x.numel() // n_cols,)](x, weight.contiguous(), g, out, n_cols, eps,
                                                 BLOCK=triton.next_power_of_2(n_cols))
    return out
