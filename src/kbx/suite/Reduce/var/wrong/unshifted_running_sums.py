"""Two passes per slice, each a running fp32 sum per lane, with no shift: right at every check size, wrong on a
GPU at the 2^30-element `bench_all` in bfloat16.

One program per output and a 1024-wide accumulator, so each lane adds up 2^20 elements of `bench_all` one after
another. The slice's offset is about 1000 and bf16 holds it to a multiple of 4: the lane's sum of x passes 2^24 x 4
early, and past it every addition rounds to the sum's spacing of 64, one way for a whole run of additions (x sits
near the same multiple of 4 each time, so the rounding errs one way, not as a random walk). The mean comes out units
off (2.3 to 8.7 for offsets of 413 to 977, with numpy's running fp32 sums on the CPU) and the variance, about 5,
gains its square: on an H200 (2026-11-28) the output was 5.74 relative from the float64 truth. A textbook kernel
that looked honest until run at bench size; the CPU interpreter never runs a bench, hence `DEVICE = "cuda"`.
`honest/two_pass_shifted.py` subtracts the slice's first element first.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"


@triton.jit
def _var_rows_kernel(x_ptr, y_ptr, n_cols, denom, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * n_cols
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, n_cols, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / n_cols
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
    if dim is None:
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
