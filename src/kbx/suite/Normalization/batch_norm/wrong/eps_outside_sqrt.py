"""Adds eps to the standard deviation instead of the variance: (x - mean) / (sqrt(var) + eps).

Indistinguishable for channels with var >> eps, but a channel whose running variance is near eps (1e-5 here:
sqrt(var) ~ 3e-3) is scaled by sqrt(var + eps) / (sqrt(var) + eps), up to ~40% off.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bn_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, C, S, eps, HAS_W: tl.constexpr,
               HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0)
    c = plane % C
    s = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = s < S
    scale = 1.0 / (tl.sqrt(tl.load(var_ptr + c).to(tl.float32)) + eps)
    shift = -tl.load(mean_ptr + c).to(tl.float32) * scale
    if HAS_W:
        w = tl.load(w_ptr + c).to(tl.float32)
        scale *= w
        shift *= w
    if HAS_B:
        shift += tl.load(b_ptr + c).to(tl.float32)
    offs = plane.to(tl.int64) * S + s
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * scale + shift).to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    C = x.shape[1]
    S = x.numel() // (x.shape[0] * C)
    w = weight if weight is not None else running_mean
    b = bias if bias is not None else running_mean
    _bn_kernel[(x.shape[0] * C, triton.cdiv(S, 256))](x, out, running_mean, running_var, w, b, C, S, eps,
                                                      HAS_W=weight is not None, HAS_B=bias is not None,
                                                      BLOCK=256)
    return out
