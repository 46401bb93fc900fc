"""The last-dim path takes `n_rows = x.shape[0]` and `x.stride(0)`, as Triton's softmax tutorial does for 2-D.

For a 2-D tensor that is every row and its stride, so every 2-D workload passes. For an N-D tensor taken along
its last dimension (batch, heads, seq) it launches one program per index of the first dim, each stepping
stride(0) = prod(shape[1:]): it normalises rows 0, shape[1], 2 shape[1], ... of the flattened view and leaves every
other row unwritten. A model adapting the tutorial's wrapper to N-D input makes exactly this slip; only a workload
with three or more dims reduced along the last one shows it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"  # the unwritten rows keep the NaN the harness fills new memory with


@triton.jit
def _softmin_rows_kernel(x_ptr, y_ptr, row_stride, n_cols, BLOCK_N: tl.constexpr):
    # One program per row; the row is loaded whole (BLOCK_N >= n_cols).
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK_N)
    mask = cols < n_cols
    x = -tl.load(x_ptr + row * row_stride + cols, mask=mask, other=float("inf")).to(tl.float32)  # softmax of -x
    p = tl.exp(x - tl.max(x, axis=0))
    y = p / tl.sum(p, axis=0)
    tl.store(y_ptr + row * row_stride + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _softmin_cols_kernel(x_ptr, y_ptr, n_red, n_inner, BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr):
    # (outer, R, inner) view: one program per (outer, block of inner columns), reduction down R in one tile.
    pid = tl.program_id(0)
    n_col_blocks = tl.cdiv(n_inner, BLOCK_I)
    outer = (pid // n_col_blocks).to(tl.int64)
    cols = (pid % n_col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)
    rows = tl.arange(0, BLOCK_R)
    offs = outer * n_red * n_inner + rows[:, None].to(tl.int64) * n_inner + cols[None, :]
    mask = (rows[:, None] < n_red) & (cols[None, :] < n_inner)
    x = -tl.load(x_ptr + offs, mask=mask, other=float("inf")).to(tl.float32)  # softmax of -x
    p = tl.exp(x - tl.max(x, axis=0)[None, :])
    tl.store(y_ptr + offs, (p / tl.sum(p, axis=0)[None, :]).to(y_ptr.dtype.element_ty), mask=mask)


def softmin(input, dim):
    x = input.contiguous()
    out = torch.empty_like(x)
    d = dim % x.dim()
    n_red = x.shape[d]
    if d == x.dim() - 1:
        # The bug: shape[0] rows of stride(0) are all the rows only when the tensor is 2-D.
        n_rows = x.shape[0]
        _softmin_rows_kernel[(n_rows,)](x, out, x.stride(0), n_red, BLOCK_N=triton.next_power_of_2(n_red))
    else:
        inner = x.stride(d)  # contiguous: the elements after dim
        outer = x.numel() // (n_red * inner)
        BLOCK_I = min(triton.next_power_of_2(inner), 16)
        grid = (outer * triton.cdiv(inner, BLOCK_I),)
        _softmin_cols_kernel[grid](x, out, n_red, inner, BLOCK_R=triton.next_power_of_2(n_red), BLOCK_I=BLOCK_I)
    return out
