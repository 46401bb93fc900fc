"""Computes each row's start, `row * n_cols`, in 32-bit integers.

The reduced dims are moved last (a copy only when the layout needs one) and each program sums one row in fp32,
walking it in BLOCK-wide chunks with a masked tail: careful, except that `tl.program_id` is int32 and so is
`row * n_cols`. Every check and the first four benches stay below 2^31 elements; `bench_over_2_31` (65537 rows of
32768) does not: its last row starts at 2^31, which wraps to -2^31, so that row is read from 8 GB (fp32) or 4 GB
(bf16) before the tensor. Where that address is unmapped the kernel faults (CRASHED); where another allocation
lives there the row sums garbage (MISMATCH, or NONFINITE if the garbage holds an inf or NaN). Which one depends on
what the allocator placed there, never on the kernel, so all three are declared; it must not pass.

GPU only: only a GPU runs bench workloads; the interpreter's sizes never reach 2^31.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = ("CRASHED", "MISMATCH", "NONFINITE")
DEVICE = "cuda"


@triton.jit
def _row_sum_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0)
    row_start = row * n_cols  # int32: wraps past 2^31
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        acc += tl.load(x_ptr + row_start + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    tl.store(out_ptr + row, tl.sum(acc, axis=0).to(out_ptr.dtype.element_ty))


def sum(input, dim, keepdim=False):
    x = input if input.dim() > 0 else input.reshape(1)
    nd = x.dim()
    dims = [dim] if isinstance(dim, int) else list(dim)
    reduced = sorted({d % nd for d in dims}) if dims else list(range(nd))
    kept = [d for d in range(nd) if d not in reduced]
    if keepdim:
        out_shape = [1 if d in reduced else x.shape[d] for d in range(nd)]
    else:
        out_shape = [x.shape[d] for d in kept] if input.dim() > 0 else []
    n_rows = math.prod(x.shape[d] for d in kept)
    n_cols = math.prod(x.shape[d] for d in reduced)
    rows = x.permute(kept + reduced).reshape(n_rows, n_cols)  # a view when already laid out so
    if n_cols > 1 and rows.stride(1) != 1 or n_rows > 1 and rows.stride(0) != n_cols:
        rows = rows.contiguous()
    out = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    if n_rows == 0:
        return out.reshape(out_shape)
    block = min(triton.next_power_of_2(max(n_cols, 1)), 4096)
    _row_sum_kernel[(n_rows,)](rows, out, n_cols, BLOCK=block, num_warps=8 if block >= 2048 else 4)
    return out.reshape(out_shape)
