"""One program per row computes all of the row's outputs in one block, capped at 4096 outputs.

The block of outputs is next_power_of_2(OL), capped at BLOCK_MAX = 4096 to bound the registers a program holds,
and no second block is ever launched: outputs past 4096 are never written. Every window, padding, dilation and
ceil_mode rule is right, so every row of up to 4096 outputs is right: all workloads but `check_long_row`, whose
rows of 9001 have 4501 outputs and their unique maximum in the last block.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK_MAX = 4096  # BUG: outputs past the first BLOCK_MAX of a row are never computed


@triton.jit
def _max_pool1d_kernel(x_ptr, out_ptr, L, OL, stride, padding, dilation, K: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    o = tl.arange(0, BLOCK)
    o_mask = o < OL
    best = tl.full([BLOCK], float("-inf"), tl.float32)
    for j in tl.static_range(K):
        i = o * stride - padding + j * dilation
        v = tl.load(x_ptr + row * L + i, mask=o_mask & (i >= 0) & (i < L), other=float("-inf"))
        best = tl.maximum(best, v.to(tl.float32))
    tl.store(out_ptr + row * OL + o, best.to(out_ptr.dtype.element_ty), mask=o_mask)


def _out_length(L, k, s, p, d, ceil_mode):
    span = L + 2 * p - d * (k - 1) - 1
    OL = (span + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (OL - 1) * s >= L + p:
        OL -= 1
    return OL


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    stride = kernel_size if stride is None else stride
    L = input.shape[-1]
    OL = _out_length(L, kernel_size, stride, padding, dilation, ceil_mode)
    x = input.contiguous().view(-1, L)
    out = torch.empty(input.shape[:-1] + (OL,), dtype=input.dtype, device=input.device)
    _max_pool1d_kernel[(x.shape[0],)](x, out, L, OL, stride, padding, dilation, K=kernel_size,
                                      BLOCK=min(triton.next_power_of_2(OL), BLOCK_MAX))
    return out
