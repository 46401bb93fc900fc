"""An honest matrix_norm as a third party writes it: line sums into an fp32 buffer, then a per-matrix reduction.

The first kernel runs one program per (matrix, block of lines), where a line is a column for ord +-1, a row for
ord +-inf and for 'fro'; it walks the other axis in chunks and writes each line's fp32 sum of |a| (or of a^2 for
'fro') into a (B, lines) buffer. The second kernel runs one program per matrix over that buffer and takes the
largest or smallest line sum (or the square root of their total for 'fro'), rounding once to the input dtype.
It differs from the suite's solution, which reduces each matrix in one program and one pass.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _line_sums(x_ptr, part_ptr, L, S, sb, sl, ss, SQUARE: tl.constexpr,
               BLOCK_L: tl.constexpr, BLOCK_S: tl.constexpr):
    b = tl.program_id(0).to(tl.int64)
    lines = tl.program_id(1) * BLOCK_L + tl.arange(0, BLOCK_L)
    acc = tl.zeros((BLOCK_L,), dtype=tl.float32)
    for s0 in range(0, S, BLOCK_S):
        s = s0 + tl.arange(0, BLOCK_S)
        mask = (lines[:, None] < L) & (s[None, :] < S)
        a = tl.load(x_ptr + b * sb + lines[:, None] * sl + s[None, :] * ss, mask=mask, other=0.0).to(tl.float32)
        if SQUARE:
            acc += tl.sum(a * a, axis=1)
        else:
            acc += tl.sum(tl.abs(a), axis=1)
    tl.store(part_ptr + b * L + lines, acc, mask=lines < L)


@triton.jit
def _finish(part_ptr, out_ptr, L, MODE: tl.constexpr, BLOCK: tl.constexpr):
    # MODE 0: sqrt of the total ('fro'); 1: largest line sum; 2: smallest.
    b = tl.program_id(0).to(tl.int64)
    if MODE == 0:
        res = tl.zeros((BLOCK,), dtype=tl.float32)
    elif MODE == 1:
        res = tl.full((BLOCK,), float("-inf"), tl.float32)
    else:
        res = tl.full((BLOCK,), float("inf"), tl.float32)
    for l0 in range(0, L, BLOCK):
        idx = l0 + tl.arange(0, BLOCK)
        if MODE == 0:
            res += tl.load(part_ptr + b * L + idx, mask=idx < L, other=0.0)
        elif MODE == 1:
            res = tl.maximum(res, tl.load(part_ptr + b * L + idx, mask=idx < L, other=float("-inf")))
        else:
            res = tl.minimum(res, tl.load(part_ptr + b * L + idx, mask=idx < L, other=float("inf")))
    if MODE == 0:
        r = tl.sqrt(tl.sum(res, axis=0))
    elif MODE == 1:
        r = tl.max(res, axis=0)
    else:
        r = tl.min(res, axis=0)
    tl.store(out_ptr + b, r.to(out_ptr.dtype.element_ty))


def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False):
    nd = A.dim()
    r, c = dim[0] % nd, dim[1] % nd
    others = [d for d in range(nd) if d not in (r, c)]
    x = A.permute(*others, r, c)
    M, N = x.shape[-2], x.shape[-1]
    x = x.reshape(-1, M, N)
    out_shape = [A.shape[d] for d in others]
    out = torch.empty(out_shape, dtype=A.dtype, device=A.device)
    B = x.shape[0]
    if ord == "fro":
        mode, columns = 0, False
    elif ord in (1, -1):
        mode, columns = (1 if ord == 1 else 2), True
    elif ord in (math.inf, -math.inf):
        mode, columns = (1 if ord > 0 else 2), False
    else:
        raise ValueError(f"unsupported ord {ord!r}")
    sb, sm, sn = x.stride()
    L, S, sl, ss = (N, M, sn, sm) if columns else (M, N, sm, sn)
    if B > 0:
        part = torch.empty((B, L), dtype=torch.float32, device=A.device)
        BLOCK_L, BLOCK_S = 32, 64
        _line_sums[(B, triton.cdiv(L, BLOCK_L))](x, part, L, S, sb, sl, ss, SQUARE=mode == 0,
                                                 BLOCK_L=BLOCK_L, BLOCK_S=BLOCK_S)
        _finish[(B,)](part, out, L, MODE=mode, BLOCK=256)
    if keepdim:
        shape = list(A.shape)
        shape[r] = 1
        shape[c] = 1
        out = out.reshape(shape)
    return out
