"""An honest batch_norm (inference) as one flat elementwise kernel reading the input through its strides.

The output is a fresh contiguous tensor. The grid is flat over its elements: each program decodes its BLOCK
flat indices into (n, c, h, w) (2-D and 3-D inputs are padded to 4-D with unit dims), gathers the input through
its own strides (channels-last, transposed and strided inputs are read in place, no copy), gathers the channel's
statistics and affine parameters in their own dtype, and computes (x - mean) * rsqrt(var + eps) * weight + bias
in fp32 with one rounding. The suite's kernel instead precomputes a per-channel scale and shift on planes or
channels-last rows of a contiguous copy.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _bn_flat(x_ptr, y_ptr, mean_ptr, var_ptr, w_ptr, b_ptr, numel, C, H, W, sn, sc, sh, sw, eps,
             HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = offs < numel
    w_i = offs % W
    h_i = (offs // W) % H
    c = (offs // (W * H)) % C
    n = offs // (W * H * C)
    x = tl.load(x_ptr + n * sn + c * sc + h_i * sh + w_i * sw, mask=ok, other=0.0).to(tl.float32)
    mean = tl.load(mean_ptr + c, mask=ok, other=0.0).to(tl.float32)
    var = tl.load(var_ptr + c, mask=ok, other=1.0).to(tl.float32)
    y = (x - mean) * tl.rsqrt(var + eps)
    if HAS_WEIGHT:
        y = y * tl.load(w_ptr + c, mask=ok, other=1.0).to(tl.float32)
    if HAS_BIAS:
        y = y + tl.load(b_ptr + c, mask=ok, other=0.0).to(tl.float32)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=ok)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1,
               eps=1e-05):
    if training:
        raise NotImplementedError("inference only")
    x4 = input
    while x4.dim() < 4:
        x4 = x4.unsqueeze(-1)
    if x4.dim() > 4:
        x4 = x4.flatten(3)
    N, C, H, W = x4.shape
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    numel = y.numel()
    if numel == 0:
        return y
    BLOCK = 1024
    _bn_flat[(triton.cdiv(numel, BLOCK),)](
        x4, y, running_mean, running_var, weight if weight is not None else running_mean,
        bias if bias is not None else running_mean, numel, C, H, W, *x4.stride(), eps,
        HAS_WEIGHT=weight is not None, HAS_BIAS=bias is not None, BLOCK=BLOCK)
    return y
