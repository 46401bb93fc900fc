"""Copies the input only when its last dim is strided, then indexes it as dense NCHW.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard in Triton kernels, and it sends
channels-last, transposed and strided inputs to a copy, so every such workload passes. It misses an input whose
planes are contiguous but whose samples are not C * S apart: the first C channels of a 2C-channel tensor, as
after x.chunk(2, dim=1): from the second sample on it reads the other channels instead.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _lrn_kernel(x_ptr, y_ptr, C, S, alpha, beta, k, SIZE: tl.constexpr, BLOCK_C: tl.constexpr,
                BLOCK_S: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    c = tl.program_id(1) * BLOCK_C + tl.arange(0, BLOCK_C)[:, None]  # a tile of channels ...
    s = tl.program_id(2) * BLOCK_S + tl.arange(0, BLOCK_S)[None, :]  # ... by a tile of positions
    mask = (c < C) & (s < S)
    base = n * C * S
    sq = tl.zeros([BLOCK_C, BLOCK_S], tl.float32)
    for j in tl.static_range(SIZE):
        cc = c - SIZE // 2 + j  # the window: SIZE // 2 channels before c, (SIZE - 1) // 2 after
        ok = mask & (cc >= 0) & (cc < C)  # channels outside [0, C) count as 0
        v = tl.load(x_ptr + base + cc.to(tl.int64) * S + s, mask=ok, other=0.0).to(tl.float32)
        sq += v * v
    div = k + alpha / SIZE * sq
    offs = base + c.to(tl.int64) * S + s
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = x * tl.exp2(-beta * tl.log2(div))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    N, C = x.shape[0], x.shape[1]
    S = math.prod(x.shape[2:])
    y = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    BLOCK_C = min(triton.next_power_of_2(C), 16)
    BLOCK_S = min(triton.next_power_of_2(S), 128)
    grid = (N, triton.cdiv(C, BLOCK_C), triton.cdiv(S, BLOCK_S))
    _lrn_kernel[grid](x, y, C, S, alpha, beta, k, SIZE=size, BLOCK_C=BLOCK_C, BLOCK_S=BLOCK_S)
    if input.dim() == 4 and input.is_contiguous(memory_format=torch.channels_last):
        y = y.contiguous(memory_format=torch.channels_last)
    return y
