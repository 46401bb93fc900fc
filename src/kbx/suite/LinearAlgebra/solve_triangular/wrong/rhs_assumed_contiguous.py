"""Reads the right-hand sides B as a dense (n, k) panel per system: B[b, i, j] at (b * n + i) * k + j.

A and X go through their strides, but B is indexed as if it were contiguous (left=False makes a contiguous copy
of B^T first, so that path is right). A B that is a transposed or strided view (right-hand sides stored column
by column, a slice of a wider buffer) is read as the wrong matrix; a contiguous B happens to work.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _trsm_kernel(a_ptr, b_ptr, x_ptr, n, k,
                 sab, sar, sac, sbb, sbr, sbc, sxb, sxr, sxc,
                 UPPER: tl.constexpr, UNIT: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    cols_k = tl.program_id(1) * BLOCK_K + tl.arange(0, BLOCK_K)
    rows = tl.arange(0, BLOCK_N)
    cols = tl.arange(0, BLOCK_N)
    # The referenced strict triangle of A (zeros elsewhere) and its diagonal.
    if UPPER:
        strict = cols[None, :] > rows[:, None]
    else:
        strict = cols[None, :] < rows[:, None]
    in_a = (rows[:, None] < n) & (cols[None, :] < n)
    a_ptrs = a_ptr + b * sab + rows[:, None] * sar + cols[None, :] * sac
    a = tl.load(a_ptrs, mask=in_a & strict, other=0.0).to(tl.float32)
    if UNIT:
        diag = tl.full((BLOCK_N,), 1.0, tl.float32)
    else:
        diag = tl.load(a_ptr + b * sab + rows * (sar + sac), mask=rows < n, other=1.0).to(tl.float32)
    # The panel of right-hand sides, solved in place row by row.
    in_b = (rows[:, None] < n) & (cols_k[None, :] < k)
    panel = tl.load(b_ptr + b * sbb + rows[:, None] * sbr + cols_k[None, :] * sbc, mask=in_b, other=0.0)
    panel = panel.to(tl.float32)
    for step in range(0, n):
        if UPPER:
            i = n - 1 - step
        else:
            i = step
        d = tl.sum(tl.where(rows == i, diag, 0.0), axis=0)
        x_i = tl.sum(tl.where(rows[:, None] == i, panel, 0.0), axis=0) / d        # solved row i
        a_col = tl.sum(tl.where(cols[None, :] == i, a, 0.0), axis=1)             # A[:, i], zero outside strict
        panel = panel - a_col[:, None] * x_i[None, :]
        panel = tl.where(rows[:, None] == i, x_i[None, :], panel)
    tl.store(x_ptr + b * sxb + rows[:, None] * sxr + cols_k[None, :] * sxc,
             panel.to(x_ptr.dtype.element_ty), mask=in_b)


def solve_triangular(A, B, upper, left=True, unitriangular=False):
    n = A.shape[-1]
    assert A.shape[-2] == n and n <= 64, "square A with n <= 64 (batched small systems)"
    batch = torch.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    out = torch.empty((*batch, *B.shape[-2:]), dtype=B.dtype, device=B.device)
    a = A.expand(*batch, n, n).reshape(-1, n, n)  # views for one batch dim; a copy only if they cannot merge
    b = B.expand(*batch, *B.shape[-2:]).reshape(-1, *B.shape[-2:])
    x = out.view(-1, *B.shape[-2:])
    if not left:  # X A = B  <=>  A^T X^T = B^T, with A^T triangular the other way round
        a, x, upper = a.transpose(1, 2), x.transpose(1, 2), not upper
        b = b.transpose(1, 2).contiguous()  # B^T as a dense (n, k) panel
    k = b.shape[2]
    if x.numel() == 0:
        return out
    BLOCK_N = max(triton.next_power_of_2(n), 16)
    BLOCK_K = min(max(triton.next_power_of_2(k), 16), 32)
    grid = (x.shape[0], triton.cdiv(k, BLOCK_K))
    # The right-hand sides: a dense (n, k) panel per system.
    _trsm_kernel[grid](a, b, x, n, k, *a.stride(), n * k, k, 1, *x.stride(),
                       UPPER=upper, UNIT=unitriangular, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K, num_warps=4)
    return out
