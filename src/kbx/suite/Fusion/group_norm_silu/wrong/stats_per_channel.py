"""Normalizes every channel with its own statistics (instance norm) instead of its group's.

Statistics over the wrong axes: the mean and variance are taken over each channel's spatial positions only,
not over all C/G channels of the group. With channels of different means and spreads inside a group, every
output moves; only one-channel-per-group workloads would hide it.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_norm_silu_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, HW, G, CG, eps, BLOCK_C: tl.constexpr,
                            BLOCK_HW: tl.constexpr):
    # One program per (n, g); the group as a [channels, HW] tile.
    n = tl.program_id(0) // G
    g = tl.program_id(0) % G
    ci = tl.arange(0, BLOCK_C)[:, None]
    hw = tl.arange(0, BLOCK_HW)[None, :]
    chan = g * CG + ci
    mask = (ci < CG) & (hw < HW)
    offs = (n * C + chan).to(tl.int64) * HW + hw
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    mean = tl.sum(x, axis=1)[:, None] / HW
    diff = tl.where(mask, x - mean, 0.0)
    rstd = tl.rsqrt(tl.sum(diff * diff, axis=1)[:, None] / HW + eps)
    w = tl.load(w_ptr + chan, mask=ci < CG, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + chan, mask=ci < CG, other=0.0).to(tl.float32)
    z = diff * rstd * w + b
    y = z / (1.0 + tl.exp(-z))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm_silu(input, num_groups, weight, bias, eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    N, C = x.shape[0], x.shape[1]
    HW = math.prod(x.shape[2:])
    CG = C // num_groups
    _group_norm_silu_kernel[(N * num_groups,)](
        x, weight.contiguous(), bias.contiguous(), out, C, HW, num_groups, CG, eps,
        BLOCK_C=triton.next_power_of_2(CG), BLOCK_HW=triton.next_power_of_2(HW))
    return out
