"""An honest group_norm_silu with one-pass statistics: sum and sum of squares together, var = E[x^2] - mean^2.

One program per (sample, group). In a contiguous (N, C, *spatial) input a group is one contiguous run of
C / G * HW elements. The first loop accumulates x and x^2 per lane in fp32 in one read, the variance is
E[x^2] - mean^2 (clamped at 0); the second loop normalises, applies the per-channel affine (channel = offset // HW)
and SiLU as z / (1 + exp(-z)), and stores in the input dtype.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _group_norm_silu(x_ptr, w_ptr, b_ptr, y_ptr, G, CPG, HW, eps, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    g = pid % G
    size = CPG * HW
    base = pid.to(tl.int64) * size
    s1 = tl.zeros([BLOCK], tl.float32)
    s2 = tl.zeros([BLOCK], tl.float32)
    for start in range(0, size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        x = tl.load(x_ptr + base + offs, mask=offs < size, other=0.0).to(tl.float32)
        s1 += x
        s2 += x * x
    mean = tl.sum(s1, axis=0) / size
    var = tl.maximum(tl.sum(s2, axis=0) / size - mean * mean, 0.0)
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, size, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        mask = offs < size
        c = g * CPG + offs // HW
        x = tl.load(x_ptr + base + offs, mask=mask, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        b = tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        z = (x - mean) * rstd * w + b
        y = z / (1.0 + tl.exp(-z))
        tl.store(y_ptr + base + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm_silu(input, num_groups, weight, bias, eps=1e-05):
    N, C = input.shape[0], input.shape[1]
    HW = math.prod(input.shape[2:])
    x = input.contiguous()
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    CPG = C // num_groups
    BLOCK = min(triton.next_power_of_2(CPG * HW), 4096)
    _group_norm_silu[(N * num_groups,)](x, weight.contiguous(), bias.contiguous(), y, num_groups, CPG, HW,
                                        float(eps), BLOCK=BLOCK)
    return y
