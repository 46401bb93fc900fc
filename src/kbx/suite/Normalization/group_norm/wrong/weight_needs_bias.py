"""Applies the affine step only when `bias` is given: a weight passed without a bias is dropped.

The author treats (weight, bias) as one "affine" switch keyed on the bias, and fills in a weight of ones when a
bias comes alone (the case the bias-only workload asks for). F.group_norm accepts a weight alone too (weight=w,
bias=None): the output must then be x_hat * w, and this kernel returns x_hat. It passes every workload with a
bias or without a weight; `check_weight_only` (a weight drawn as 1 + 0.5 randn, no bias) fails.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, C, HW, G, group_size, eps,
                       HAS_W: tl.constexpr, HAS_B: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)  # one program per (sample, group)
    g = pid % G
    base = pid * group_size  # groups are contiguous in an NCHW tensor
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, group_size, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_ptr + base + idx, mask=idx < group_size, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / group_size
    acc2 = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, group_size, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        mask = idx < group_size
        x = tl.load(x_ptr + base + idx, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / group_size
    rstd = 1.0 / tl.sqrt(var + eps)
    cpg = C // G
    for start in range(0, group_size, BLOCK_SIZE):
        idx = start + tl.arange(0, BLOCK_SIZE)
        mask = idx < group_size
        x = tl.load(x_ptr + base + idx, mask=mask, other=0.0).to(tl.float32)
        c = g * cpg + idx // HW
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + idx, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    x = input.contiguous()
    N, C = x.shape[0], x.shape[1]
    HW = math.prod(x.shape[2:]) if x.dim() > 2 else 1
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y
    group_size = (C // num_groups) * HW
    w = weight.contiguous() if weight is not None else x
    b = bias.contiguous() if bias is not None else x
    affine = bias is not None  # one switch for the affine pair, as nn.GroupNorm's affine
    if affine and weight is None:
        w = torch.ones(C, dtype=x.dtype, device=x.device)  # bias alone: scale by 1
    BLOCK_SIZE = min(triton.next_power_of_2(group_size), 4096)
    _group_norm_kernel[(N * num_groups,)](x, y, w, b, C, HW, num_groups, group_size, float(eps),
                                          HAS_W=affine, HAS_B=affine,
                                          BLOCK_SIZE=BLOCK_SIZE)
    return y
