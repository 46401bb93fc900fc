"""Always normalises the last dimension, whatever `dim` says.

Right for the common dim=-1 call, wrong for dim 0 and middle dims, where the slices run across the last
dimension instead of along it (and `scale`, of size shape[dim], is indexed along the wrong axis).
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _l2_normalize_scale_kernel(x_ptr, s_ptr, y_ptr, R, inner, eps, BLOCK_R: tl.constexpr):
    # One program per (outer, inner) slice, walking down R with stride inner.
    pid = tl.program_id(0)
    base = (pid // inner).to(tl.int64) * R * inner + pid % inner
    r = tl.arange(0, BLOCK_R)
    mask = r < R
    x = tl.load(x_ptr + base + r * inner, mask=mask, other=0.0).to(tl.float32)
    sq = tl.sum(x * x, axis=0)
    inv = 1.0 / tl.maximum(tl.sqrt(sq), eps)
    g = tl.load(s_ptr + r, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + base + r * inner, (x * inv * g).to(y_ptr.dtype.element_ty), mask=mask)


def l2_normalize_scale(input, scale, dim=-1, eps=1e-12):
    x = input.contiguous()
    out = torch.empty_like(x)
    d = x.dim() - 1  # ignores dim
    R = x.shape[d]
    inner = math.prod(x.shape[d + 1:])
    _l2_normalize_scale_kernel[(x.numel() // R,)](x, scale.contiguous(), out, R, inner, eps,
                                                  BLOCK_R=triton.next_power_of_2(R))
    return out
