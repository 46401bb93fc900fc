"""Decodes each element's channel as (i // (H * W)) % C with H, W the last two dims, which is wrong for 5-D input.

Plausible: c = (offset // (H * W)) % C is the classic NCHW elementwise formula, and a kernel that takes
H, W = x.shape[-2:] (with 3-D and 2-D inputs special-cased) is right for every BatchNorm1d and BatchNorm2d
shape. F.batch_norm takes any (N, C, *spatial); for a BatchNorm3d input (N, C, D, H, W) each plane of H * W
elements gets the statistics of channel (d + D * c) % C instead of c. Only a 5-D workload shows it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bn_flat_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, numel, C, HW, eps, HAS_W: tl.constexpr,
                    HAS_B: tl.constexpr, BLOCK: tl.constexpr):
    i = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = i < numel
    c = (i // HW) % C  # the channel of each element in NCHW order
    mean = tl.load(mean_ptr + c, mask=mask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + c, mask=mask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + c, mask=mask, other=1.0).to(tl.float32) if HAS_W else 1.0
    b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32) if HAS_B else 0.0
    x = tl.load(x_ptr + i, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(y_ptr + i, y.to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    x = input.contiguous()
    C = x.shape[1]
    # (N, C): one value per plane; (N, C, L): L; (N, C, H, W): H * W.
    HW = 1 if x.dim() == 2 else x.shape[-1] if x.dim() == 3 else x.shape[-2] * x.shape[-1]
    y = torch.empty_like(x)
    w = weight if weight is not None else running_mean  # dummy pointer when absent
    b = bias if bias is not None else running_mean
    BLOCK = 1024
    _bn_flat_kernel[(triton.cdiv(x.numel(), BLOCK),)](x, y, running_mean, running_var, w, b, x.numel(), C, HW, eps,
                                                      HAS_W=weight is not None, HAS_B=bias is not None, BLOCK=BLOCK)
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last):
        y = y.contiguous(memory_format=torch.channels_last)
    return y
