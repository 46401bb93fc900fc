"""Copies the input only when its rows are not contiguous, then indexes it as dense rows L apart.

Plausible: checking stride(-1) == 1 and stride(-2) == L ("each channel is one dense row") sends transposed and
strided inputs to a copy and reads contiguous ones in place, so every such workload passes. It misses an input
whose rows are dense but not L apart from one channel to the next sample: the first C channels of a 2C-channel
tensor, as after x.chunk(2, dim=1): from the second sample on it averages the other channels.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _avg_pool1d_kernel(x_ptr, y_ptr, L, OL, S, P, K: tl.constexpr, COUNT_PAD: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    out_mask = o < OL
    start = o * S - P
    end = tl.minimum(start + K, L + P)
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    x_row = x_ptr + row * L  # rows assumed L apart
    for k in tl.static_range(K):
        pos = start + k
        ok = out_mask & (pos >= 0) & (pos < L) & (pos < end)
        acc += tl.load(x_row + pos, mask=ok, other=0.0).to(tl.float32)
    if COUNT_PAD:
        div = end - start
    else:
        div = tl.minimum(end, L) - tl.maximum(start, 0)
    out = acc / div.to(tl.float32)
    tl.store(y_ptr + row * OL + o, out.to(y_ptr.dtype.element_ty), mask=out_mask)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    k = kernel_size if isinstance(kernel_size, int) else kernel_size[0]
    s = k if stride is None else (stride if isinstance(stride, int) else stride[0])
    p = padding if isinstance(padding, int) else padding[0]
    L = input.shape[-1]
    num = L + 2 * p - k
    if ceil_mode:
        OL = -(-num // s) + 1
        if (OL - 1) * s >= L + p:
            OL -= 1
    else:
        OL = num // s + 1
    # Each row must be dense for the flat indexing; copy only when it is not.
    rows_dense = input.stride(-1) == 1 and (input.dim() == 1 or input.stride(-2) == L)
    x = input if rows_dense else input.contiguous()
    rows = x.numel() // L
    y = torch.empty(input.shape[:-1] + (OL,), dtype=input.dtype, device=input.device)
    BLOCK_SIZE = min(triton.next_power_of_2(max(OL, 1)), 1024)
    grid = (rows, triton.cdiv(OL, BLOCK_SIZE))
    _avg_pool1d_kernel[grid](x, y, L, OL, s, p, K=k, COUNT_PAD=bool(count_include_pad), BLOCK_SIZE=BLOCK_SIZE)
    return y
