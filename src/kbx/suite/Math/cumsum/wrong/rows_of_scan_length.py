"""Treats the input as rows of length L = input.shape[dim] by reshaping its contiguous copy to (-1, L).

That is the right view only when `dim` is the last dim. For the first or a middle dim the elements of one
row of the reshaped tensor are not the elements of one scan: cumsum(x, dim=0) of a (129, 127) tensor becomes a
scan over runs of 129 consecutive memory elements, which cut across the real rows. The scan itself (chunked,
carried, fp32) is correct.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _cumsum_rows_kernel(x_ptr, out_ptr, n_rows, L, BLOCK_L: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = tl.zeros([1], dtype=tl.float32)
    for l0 in range(0, L, BLOCK_L):
        l = l0 + tl.arange(0, BLOCK_L)
        mask = l < L
        x = tl.load(x_ptr + row * L + l, mask=mask, other=0.0).to(tl.float32)
        y = tl.cumsum(x, axis=0) + carry
        tl.store(out_ptr + row * L + l, y.to(out_ptr.dtype.element_ty), mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(input, dim):
    L = input.shape[dim] if input.dim() else 1
    x = input.contiguous().reshape(-1, L)
    out = torch.empty_like(x)
    _cumsum_rows_kernel[(x.shape[0],)](x, out, x.shape[0], L, BLOCK_L=1024)
    return out.reshape(input.shape)
