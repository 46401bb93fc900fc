"""Assigns channels to groups round-robin (channel c in group c % G) instead of in contiguous blocks (c // (C/G)).

A natural misreading of "C channels in G groups". The statistics of each group then mix channels from every
block; since channels differ in mean and scale, every output moves. With one group, or one channel per group,
the two assignments coincide, so only the workloads with several channels per group expose it.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _group_norm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, S, G, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                       BLOCK: tl.constexpr):
    n = tl.program_id(0) // G
    g = tl.program_id(0) % G
    group_c = C // G
    count = group_c * S
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        c = (i // S) * G + g  # the k-th channel of the group is g + k * G
        x = tl.load(x_ptr + (n * C + c).to(tl.int64) * S + i % S, mask=i < count, other=0.0).to(tl.float32)
        acc += x
    mean = tl.sum(acc, axis=0) / count
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        c = (i // S) * G + g
        x = tl.load(x_ptr + (n * C + c).to(tl.int64) * S + i % S, mask=i < count, other=0.0).to(tl.float32)
        d = tl.where(i < count, x - mean, 0.0)
        acc += d * d
    rstd = 1.0 / tl.sqrt(tl.sum(acc, axis=0) / count + eps)
    for start in range(0, count, BLOCK):
        i = start + tl.arange(0, BLOCK)
        mask = i < count
        c = (i // S) * G + g
        offs = (n * C + c).to(tl.int64) * S + i % S
        y = (tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32) - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + c, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + c, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05):
    x = input.contiguous()
    out = torch.empty_like(x)
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    w = weight if weight is not None else x
    b = bias if bias is not None else x
    _group_norm_kernel[(N * num_groups,)](x, w, b, out, C, S, num_groups, eps, HAS_W=weight is not None,
                                          HAS_B=bias is not None, BLOCK=1024)
    return out
