"""Casts the running statistics and affine parameters to the input's dtype before the kernel.

Plausible: "make everything fp16 so the pointers agree" is a common host-side shortcut when the statistics come
in fp32 (the mixed-precision case). It rounds the running mean to fp16 (an error up to ulp(5) / 2 ~ 2e-3) and
the running variance (near eps, fp16 subnormals keep only a few bits); for a channel whose std is ~3e-3 the
mean's rounding alone moves the output by ~0.5.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bn_rows_kernel(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, R, C, eps, HAS_W: tl.constexpr,
                    HAS_B: tl.constexpr, BLOCK_R: tl.constexpr, BLOCK_C: tl.constexpr):
    r = tl.program_id(0) * BLOCK_R + tl.arange(0, BLOCK_R)[:, None]
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)[None, :]
    cmask = c < C
    mask = (r < R) & cmask
    # Per-channel parameters, one row vector shared by the BLOCK_R rows.
    mean = tl.load(mean_ptr + c, mask=cmask, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + c, mask=cmask, other=1.0).to(tl.float32)
    w = tl.load(w_ptr + c, mask=cmask, other=1.0).to(tl.float32) if HAS_W else 1.0
    b = tl.load(b_ptr + c, mask=cmask, other=0.0).to(tl.float32) if HAS_B else 0.0
    offs = r.to(tl.int64) * C + c
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = (x - mean) / tl.sqrt(var + eps) * w + b
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    C = input.shape[1]
    # Everything in the input dtype (rounds fp32 statistics and parameters).
    running_mean, running_var = running_mean.to(input.dtype), running_var.to(input.dtype)
    weight = weight.to(input.dtype) if weight is not None else None
    bias = bias.to(input.dtype) if bias is not None else None
    xl = input.movedim(1, -1).contiguous()  # (N, *spatial, C), dense
    yl = torch.empty_like(xl)
    R = xl.numel() // C
    w = weight if weight is not None else running_mean  # dummy pointer when absent
    b = bias if bias is not None else running_mean
    BLOCK_C = min(triton.next_power_of_2(C), 64)
    BLOCK_R = 32
    grid = (triton.cdiv(R, BLOCK_R), triton.cdiv(C, BLOCK_C))
    _bn_rows_kernel[grid](xl, yl, running_mean, running_var, w, b, R, C, eps, HAS_W=weight is not None,
                          HAS_B=bias is not None, BLOCK_R=BLOCK_R, BLOCK_C=BLOCK_C)
    return yl.movedim(-1, 1)
