"""Takes each element's channel from its last index (flat index % C), as if the input were channels-last.

Right for a 2-D (N, C) input, where the channel is the last dim, which is the case a quick test often uses; for
an NCHW tensor the channel is dim 1, and every element gets another channel's statistics.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bn_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, n, C, eps, HAS_W: tl.constexpr,
               HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    c = offs % C
    scale = 1.0 / tl.sqrt(tl.load(var_ptr + c, mask=mask, other=1.0).to(tl.float32) + eps)
    shift = -tl.load(mean_ptr + c, mask=mask, other=0.0).to(tl.float32) * scale
    if HAS_W:
        w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        scale *= w
        shift *= w
    if HAS_B:
        shift += tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, (x * scale + shift).to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    w = weight if weight is not None else running_mean
    b = bias if bias is not None else running_mean
    _bn_kernel[(triton.cdiv(x.numel(), 1024),)](x, out, running_mean, running_var, w, b, x.numel(), x.shape[1],
                                                eps, HAS_W=weight is not None, HAS_B=bias is not None,
                                                BLOCK=1024)
    return out
