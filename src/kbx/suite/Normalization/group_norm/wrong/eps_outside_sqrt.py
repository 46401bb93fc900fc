"""Divides by sqrt(var) + eps instead of sqrt(var + eps) (an "avoid division by zero" guard).

Plausible: many hand-written normalizations guard the standard deviation, not the variance. With the default
eps = 1e-5 and unit-scale groups the two agree to ~1e-5 relative, inside the fp32 tolerance, and a constant
group gives 0 / eps = 0 either way; only a group whose spread is comparable to sqrt(eps) (a large eps) tells
them apart, e.g. var = 1, eps = 0.1: sqrt(1.1) = 1.049 against 1.1.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_kernel(x_ptr, w_ptr, b_ptr, y_ptr, S, G, group_c, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                  BLOCK: tl.constexpr):
    pid = tl.program_id(0)  # = n * G + g
    g = pid % G
    count = group_c * S
    base = pid.to(tl.int64) * count  # the group's first element
    # Pass 1: the mean.
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + base + i, mask=i < count, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / count
    # Pass 2: the biased variance from the deviations.
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + i, mask=i < count, other=0.0).to(tl.float32)
        d = tl.where(i < count, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / (tl.sqrt(tl.sum(acc, axis=0) / count) + eps)
    # Pass 3: normalize; each element's channel picks its weight and bias.
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        m = i < count
        c = g * group_c + i // S
        x = tl.load(x_ptr + base + i, mask=m, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=m, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=m, other=0.0).to(tl.float32)
        tl.store(y_ptr + base + i, y.to(y_ptr.dtype.element_ty), mask=m)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    x = input.contiguous()
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    y = torch.empty_like(x)
    group_c = C // num_groups
    w = weight if weight is not None else x  # dummy pointer when absent
    b = bias if bias is not None else x
    BLOCK = min(triton.next_power_of_2(group_c * S), 2048)
    _group_kernel[(N * num_groups,)](x, w, b, y, S, num_groups, group_c, eps, HAS_W=weight is not None,
                                     HAS_B=bias is not None, BLOCK=BLOCK)
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last):
        y = y.contiguous(memory_format=torch.channels_last)
    return y
