"""Reads `tensor` with `input`'s stride: one element stride is passed for both vectors.

The kernel handles strided vectors (every other element of a buffer, a column of a matrix) without a copy, but
takes the stride from `input` only: the writer assumed that two vectors of one dot product come laid out
alike. They do when both are contiguous or both are the same kind of slice; where `tensor` has another stride
than `input` (a contiguous tensor next to a strided input, or a stride-2 tensor next to a matrix column) the
kernel multiplies input[i] by the wrong elements of tensor, or by memory past its end.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _dot_partial_kernel(a_ptr, b_ptr, partial_ptr, n, stride, BLOCK: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    offs = pid * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    a = tl.load(a_ptr + offs * stride, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + offs * stride, mask=mask, other=0.0).to(tl.float32)  # input's stride, used for tensor
    tl.store(partial_ptr + pid, tl.sum(a * b, axis=0))


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def dot(input, tensor):
    n = input.numel()
    BLOCK = 2048
    n_blocks = max(triton.cdiv(n, BLOCK), 1)
    partials = torch.zeros(n_blocks, dtype=torch.float32, device=input.device)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    if n > 0:
        _dot_partial_kernel[(n_blocks,)](input, tensor, partials, n, input.stride(0), BLOCK=BLOCK)
    _finish_kernel[(1,)](partials, out, n_blocks, BLOCK=1024)
    return out
