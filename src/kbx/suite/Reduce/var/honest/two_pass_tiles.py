"""An honest var written as the textbook two-pass formula with 2-D tiles (BLOCK_M rows per program).

The reduced dims are permuted to the end and the input copied once into a [rows, reduced] matrix. Pass 1 sums
each row in fp32 per lane and divides by n; pass 2 sums (x - mean)^2 in fp32, so the large per-row offset
cancels before anything is squared; the sum is divided by max(0, n - correction) (a zero divisor gives inf, or
NaN for a zero sum, as PyTorch does). Both per-lane sums are compensated (Kahan): one program sums a whole row, and
`bench_all`'s row is 2^30 elements, 2^20 per lane; a plain fp32 running sum of values near 1000 drifts there (mean
off by 4, variance 24 for 8.65, emulated on the CPU; an H200 rejected it), while the compensated one is exact to
fp32.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _kahan_add(total, lost, x):
    y = x - lost
    t = total + y
    return t, (t - total) - y


@triton.jit
def _var_kernel(x_ptr, y_ptr, n_rows, n_cols, divisor, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    base = x_ptr + rows[:, None].to(tl.int64) * n_cols
    # Pass 1: the mean.
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    lost = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)  # what each lane's running sum has rounded away so far
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        x = tl.load(base + cols, mask=row_ok & (cols < n_cols), other=0.0).to(tl.float32)
        acc, lost = _kahan_add(acc, lost, x)
    mean = tl.sum(acc, axis=1) / n_cols
    # Pass 2: the sum of squared deviations; padded lanes must add 0, not (0 - mean)^2.
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    lost = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)[None, :]
        mask = row_ok & (cols < n_cols)
        x = tl.load(base + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean[:, None], 0.0)
        acc, lost = _kahan_add(acc, lost, d * d)
    var = tl.sum(acc, axis=1) / divisor
    tl.store(y_ptr + rows, var.to(y_ptr.dtype.element_ty), mask=rows < n_rows)


def _rows(x, dim):
    """View x as [kept elements, reduced elements]: kept dims first, reduced dims last, then one copy."""
    nd = x.dim()
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim % nd]
    else:
        dims = sorted({d % nd for d in dim})
    kept = [d for d in range(nd) if d not in dims]
    n_rows = math.prod(x.shape[d] for d in kept)
    n_cols = math.prod(x.shape[d] for d in dims)
    rows = x.permute(kept + dims).reshape(n_rows, n_cols).contiguous()
    return rows, dims, kept


def _out_shape(x, dims, kept, keepdim):
    return [1 if d in dims else x.shape[d] for d in range(x.dim())] if keepdim else [x.shape[d] for d in kept]


def var(input, dim=None, correction=1, keepdim=False):
    rows, dims, kept = _rows(input, dim)
    n_rows, n_cols = rows.shape
    y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    divisor = float(max(0, n_cols - correction))
    BLOCK_N = min(triton.next_power_of_2(n_cols), 1024)
    BLOCK_M = 8
    _var_kernel[(triton.cdiv(n_rows, BLOCK_M),)](rows, y, n_rows, n_cols, divisor, BLOCK_M=BLOCK_M,
                                                  BLOCK_N=BLOCK_N)
    return y.view(_out_shape(input, dims, kept, keepdim))
