"""Forms |x|^p for a general p by multiplying |x| by itself: int(p) factors, so a fractional p is truncated.

The solution with its general-p path (p other than 1, 2 and inf) written as repeated multiplication, which is
exact-looking and fast for the integer exponents one usually meets (p = 3, 4). For p = 1.5 it sums |x|^1 and then
takes the 1.5th root of that sum, so every slice is divided by the wrong norm. It passed every workload with an
integer p; `check_p_fractional` (p = 1.5) catches it.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

MAX_ONE_TILE = 16384  # the longest slice kept in registers
TILE = 4096  # elements per tile when streaming, or when packing several short slices in one program
P_INF, P_ONE, P_TWO, P_ANY = 0, 1, 2, 3  # how |x|^p is accumulated


@triton.jit
def _accumulate(acc, x, p, P_KIND: tl.constexpr):
    # Elementwise fp32 accumulation of |x|^p (or max |x| for p = inf); padding lanes hold 0 and add nothing.
    a = tl.abs(x)
    if P_KIND == 0:
        return tl.maximum(acc, a)
    elif P_KIND == 1:
        return acc + a
    elif P_KIND == 2:
        return acc + x * x
    else:
        # |x|^p by repeated multiplication (the bug: int(p) factors)
        t = a
        for _ in range(1, p.to(tl.int32)):
            t = t * a
        return acc + t


@triton.jit
def _inv_norm(s, p, eps, P_KIND: tl.constexpr):
    # 1 / max(norm, eps) from the reduced accumulator.
    if P_KIND == 0 or P_KIND == 1:
        norm = s
    elif P_KIND == 2:
        norm = tl.sqrt(s)
    else:
        norm = tl.where(s == 0.0, 0.0, tl.exp2(tl.log2(s) / p))
    return 1.0 / tl.maximum(norm, eps)


@triton.jit
def _reduce(acc, axis: tl.constexpr, P_KIND: tl.constexpr):
    if P_KIND == 0:
        return tl.max(acc, axis=axis)
    else:
        return tl.sum(acc, axis=axis)


@triton.jit
def _rows_kernel(x_ptr, y_ptr, n_rows, n_cols, p, eps, P_KIND: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, ONE_TILE: tl.constexpr):
    rows = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    row_ok = rows[:, None] < n_rows
    row_start = rows.to(tl.int64)[:, None] * n_cols  # 64-bit: rows * n_cols passes 2^31 on the benches
    cols0 = tl.arange(0, BLOCK_N)[None, :]
    if ONE_TILE:
        mask = row_ok & (cols0 < n_cols)
        x = tl.load(x_ptr + row_start + cols0, mask=mask, other=0.0).to(tl.float32)
        acc = _accumulate(tl.zeros([BLOCK_M, BLOCK_N], tl.float32), x, p, P_KIND)
        inv = _inv_norm(_reduce(acc, 1, P_KIND), p, eps, P_KIND)
        tl.store(y_ptr + row_start + cols0, (x * inv[:, None]).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + cols0
            x = tl.load(x_ptr + row_start + cols, mask=row_ok & (cols < n_cols), other=0.0).to(tl.float32)
            acc = _accumulate(acc, x, p, P_KIND)
        inv = _inv_norm(_reduce(acc, 1, P_KIND), p, eps, P_KIND)[:, None]
        for start in range(0, n_cols, BLOCK_N):
            cols = start + cols0
            mask = row_ok & (cols < n_cols)
            x = tl.load(x_ptr + row_start + cols, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + row_start + cols, (x * inv).to(y_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _cols_kernel(x_ptr, y_ptr, n_red, n_inner, p, eps, P_KIND: tl.constexpr,
                 BLOCK_R: tl.constexpr, BLOCK_I: tl.constexpr, ONE_TILE: tl.constexpr):
    # A flat grid over (outer index, block of slices), so neither count meets grid axis 1's 65535 limit.
    pid = tl.program_id(0)
    col_blocks = tl.cdiv(n_inner, BLOCK_I)
    outer = (pid // col_blocks).to(tl.int64)
    cols = (pid % col_blocks) * BLOCK_I + tl.arange(0, BLOCK_I)[None, :]
    col_ok = cols < n_inner
    base = outer * n_red * n_inner + cols  # offsets of reduction index 0 of this program's slices
    r0 = tl.arange(0, BLOCK_R)[:, None]
    if ONE_TILE:
        mask = (r0 < n_red) & col_ok
        offs = base + r0.to(tl.int64) * n_inner
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        acc = _accumulate(tl.zeros([BLOCK_R, BLOCK_I], tl.float32), x, p, P_KIND)
        inv = _inv_norm(_reduce(acc, 0, P_KIND), p, eps, P_KIND)
        tl.store(y_ptr + offs, (x * inv[None, :]).to(y_ptr.dtype.element_ty), mask=mask)
    else:
        acc = tl.zeros([BLOCK_R, BLOCK_I], tl.float32)
        for start in range(0, n_red, BLOCK_R):
            r = start + r0
            x = tl.load(x_ptr + base + r.to(tl.int64) * n_inner, mask=(r < n_red) & col_ok, other=0.0)
            acc = _accumulate(acc, x.to(tl.float32), p, P_KIND)
        inv = _inv_norm(_reduce(acc, 0, P_KIND), p, eps, P_KIND)[None, :]
        for start in range(0, n_red, BLOCK_R):
            r = start + r0
            mask = (r < n_red) & col_ok
            offs = base + r.to(tl.int64) * n_inner
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            tl.store(y_ptr + offs, (x * inv).to(y_ptr.dtype.element_ty), mask=mask)


def _warps(tile):
    return 4 if tile <= 2048 else 8 if tile <= 4096 else 16


def normalize(input, p=2.0, dim=1, eps=1e-12):
    x = input.contiguous()
    out = torch.empty_like(x)
    if x.numel() == 0:
        return out
    p = float(p)
    kind = P_INF if math.isinf(p) else P_ONE if p == 1.0 else P_TWO if p == 2.0 else P_ANY
    shape = list(x.shape) if x.dim() > 0 else [1]
    d = dim % len(shape)
    n_red = shape[d]
    outer = math.prod(shape[:d])
    inner = math.prod(shape[d + 1:])
    width = triton.next_power_of_2(n_red)
    p_arg = 1.0 if math.isinf(p) else p  # unused for p = inf; keeps the kernel argument finite

    if inner == 1:
        if width <= MAX_ONE_TILE:
            BLOCK_N, one_tile = width, True
            BLOCK_M = min(max(TILE // BLOCK_N, 1), triton.next_power_of_2(outer))
        else:
            BLOCK_M, BLOCK_N, one_tile = 1, TILE, False
        _rows_kernel[(triton.cdiv(outer, BLOCK_M),)](x, out, outer, n_red, p_arg, eps, P_KIND=kind,
                                                     BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, ONE_TILE=one_tile,
                                                     num_warps=_warps(BLOCK_M * BLOCK_N))
    else:
        # 32 adjacent slices (128 B of fp32) per tile row: coalesced, and many programs when inner is large.
        BLOCK_I = min(triton.next_power_of_2(inner), 32)
        one_tile = width * BLOCK_I <= MAX_ONE_TILE
        BLOCK_R = width if one_tile else TILE // BLOCK_I
        _cols_kernel[(outer * triton.cdiv(inner, BLOCK_I),)](x, out, n_red, inner, p_arg, eps, P_KIND=kind,
                                                             BLOCK_R=BLOCK_R, BLOCK_I=BLOCK_I, ONE_TILE=one_tile,
                                                             num_warps=_warps(BLOCK_R * BLOCK_I))
    return out
