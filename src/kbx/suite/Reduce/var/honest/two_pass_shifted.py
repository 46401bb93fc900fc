"""An honest var as a third party writes it: two passes per slice, each a running fp32 sum per lane, the first taken
around the slice's first element (a shifted mean), so the sums stay small whatever the slice's offset.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
Without the shift, on an H200 (2026-11-28), the 2^30-element `bench_all` in bf16 lost the mean: each slice's offset
of up to 1000 sits on a multiple of bf16's spacing, and a lane's running sum of 2^20 such values rounds one way
past 2^26. Units off in the mean, the variance 5.74 relative from the truth on one secret seed; on another (a
smaller offset) it passed, so that kernel is no reliable wrong candidate and is not kept as one.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _var_rows_kernel(x_ptr, y_ptr, n_cols, denom, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    shift = tl.load(x_row).to(tl.float32)
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        acc += tl.where(mask, x - shift, 0.0)
    mean = shift + tl.sum(acc, axis=0) / n_cols
    acc2 = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < n_cols
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc2 += d * d
    m2 = tl.sum(acc2, axis=0)
    tl.store(y_ptr + row, (m2 / denom).to(y_ptr.dtype.element_ty))


def var(input, dim=None, correction=1, keepdim=False):
    nd = input.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):  # (): every dim, as torch.var
        dims = list(range(nd))
    elif isinstance(dim, int):
        dims = [dim]
    else:
        dims = list(dim)
    dims = sorted(set(d % nd for d in dims))
    kept = [d for d in range(nd) if d not in dims]
    x = input.permute(kept + dims).contiguous()
    n_rows = 1
    for d in kept:
        n_rows *= input.shape[d]
    n_cols = 1
    for d in dims:
        n_cols *= input.shape[d]
    y = torch.empty(n_rows, dtype=input.dtype, device=input.device)
    denom = float(max(0, n_cols - correction))
    if n_rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(n_cols, 1)), 1024)
        _var_rows_kernel[(n_rows,)](x, y, n_cols, denom, BLOCK_SIZE=BLOCK_SIZE)
    if keepdim:
        shape = [1 if d in dims else input.shape[d] for d in range(nd)]
    else:
        shape = [input.shape[d] for d in kept]
    return y.view(shape)
