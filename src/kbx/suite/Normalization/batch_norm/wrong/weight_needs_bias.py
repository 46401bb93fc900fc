"""Applies the affine step only when `bias` is given: a weight passed without a bias is dropped.

The author treats (weight, bias) as one "affine" switch keyed on the bias, and fills in a weight of ones when a
bias comes alone (the case the bias-only workload asks for). F.batch_norm accepts a weight alone too (weight=w,
bias=None): the output must then be x_hat * w, and this kernel returns x_hat. It passes every workload with a
bias or without a weight; `check_weight_only` (a weight drawn as 1 + 0.5 randn, no bias) fails.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
    affine = bias is not None  # one switch for the affine pair, as nn.BatchNorm2d's affine
    w = weight
    if affine and w is None:
        w = torch.ones(C, dtype=running_mean.dtype, device=input.device)  # bias alone: scale by 1
    BLOCK = 1024
    _bn_flat[(triton.cdiv(numel, BLOCK),)](
        x4, y, running_mean, running_var, w if affine else running_mean,
        bias if affine else running_mean, numel, C, H, W, *x4.stride(), eps,
        HAS_WEIGHT=affine, HAS_BIAS=affine, BLOCK=BLOCK)
    return y
