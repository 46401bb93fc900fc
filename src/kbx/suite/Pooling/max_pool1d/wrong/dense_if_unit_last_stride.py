"""Copies the input only when its last dim is strided, then indexes it as dense rows L apart.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before a flat-indexing Triton
kernel, and it sends transposed and strided inputs to a copy, so every such workload passes. It misses an input
whose rows are contiguous but not L apart from one channel to the next sample: the first C channels of a
2C-channel tensor, as after x.chunk(2, dim=1): from the second sample on it pools the other channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _max_pool1d_kernel(x_ptr, y_ptr, L, OL, S, P, D, K: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = o < OL
    x_row = x_ptr + row * L  # rows assumed L apart
    acc = tl.full([BLOCK_SIZE], float("-inf"), tl.float32)
    for k in tl.static_range(K):
        pos = o * S - P + k * D
        ok = out_mask & (pos >= 0) & (pos < L)
        acc = tl.maximum(acc, tl.load(x_row + pos, mask=ok, other=float("-inf")).to(tl.float32))
    tl.store(y_ptr + row * OL + o, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    k = kernel_size
    s = k if stride is None else stride
    p, d = padding, dilation
    L = input.shape[-1]
    num = L + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        OL = -(-num // s) + 1
        if (OL - 1) * s >= L + p:
            OL -= 1
    else:
        OL = num // s + 1
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided).
    x = input if input.stride(-1) == 1 else input.contiguous()
    rows = x.numel() // L
    y = torch.empty(input.shape[:-1] + (OL,), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OL, 1)), 1024)
    grid = (rows, triton.cdiv(OL, BLOCK_SIZE))
    _max_pool1d_kernel[grid](x, y, L, OL, s, p, d, K=k, BLOCK_SIZE=BLOCK_SIZE)
    return y
