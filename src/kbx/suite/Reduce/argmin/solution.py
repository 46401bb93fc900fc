"""Argmin along one dim (or over the flattened input) in Triton: one streaming pass, first index on ties.

The input is viewed as (outer, R, inner), where R is the reduced dim (dim=None: outer = inner = 1, R = numel).
Non-contiguous inputs are made contiguous first (one extra copy; for dim=None the flat index is defined on the
row-major order anyway). One kernel, two layouts chosen at compile time:

* ROW (inner == 1, reducing the contiguous last dim): a program owns BLOCK_P rows and sweeps them left to right
  in [BLOCK_P, BLOCK_R] tiles, so every load is a contiguous run (several short rows per tile).
* COL (inner > 1, reducing a leading or middle dim): a program owns BLOCK_P adjacent columns of one outer index
  and walks down R in [BLOCK_R, BLOCK_P] tiles; each tile row is a contiguous run, so loads coalesce without
  transposing.

Every tile lane keeps a running (value, index) pair instead of reducing each tile: a lane sees its indices in
increasing order, so the strict update `v < best` keeps the first occurrence within the lane. Only at the end
are the lanes merged: the minimum value, then the smallest index among the lanes holding it, which is exactly
PyTorch's first-index rule.

Split reduction: with too few outputs to give every SM four programs (dim=None, a few long columns), the tiles of
R are shared out over a second grid axis. Each share writes its (minimum, index) pair to fp32/int64 partials,
and a second launch of the same kernel, in COL layout over the (splits, outputs) partials, merges them with the
same rule, taking the candidate indices from the partials (shares cover increasing ranges of R, so the first
index still wins). Offsets are int64.

Argmin is memory-bound: one read of the input plus an int64 per output. On an H100 (~3 TB/s) the 32768 x 32768
fp32 benches (4.3 GB) should take about 1.5 ms along the last dim, a middle dim or over everything; half that in
fp16/bf16.
"""

import math

import torch
import triton
import triton.language as tl

TILE_BYTES = 16384  # bytes of input per loaded tile
COL_BYTES = 256  # COL layout: bytes of one tile row
PROGRAMS_PER_SM = 4  # split the reduction when fewer programs than this per SM would run


@triton.jit
def _argmin_kernel(
    x_ptr, idx_in_ptr, val_out_ptr, idx_out_ptr,
    n_rows, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, out_split_stride,
    ROW: tl.constexpr, FROM_PARTIALS: tl.constexpr, TO_PARTIALS: tl.constexpr,
    BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr,
):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    if ROW:
        p = pid * BLOCK_P + tl.arange(0, BLOCK_P)
        p_mask = p < n_rows
        base = p.to(tl.int64) * R
        out_idx = p.to(tl.int64)
    else:
        o = (pid // n_p_blocks).to(tl.int64)
        c = (pid % n_p_blocks) * BLOCK_P + tl.arange(0, BLOCK_P)
        p_mask = c < inner
        base = o * R * inner + c
        out_idx = o * inner + c

    best = tl.full([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], float("inf"), tl.float32)
    best_idx = tl.zeros([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], tl.int64)
    t_lo = split * tiles_per_split
    t_hi = tl.minimum(t_lo + tiles_per_split, n_r_tiles)
    for t in range(t_lo, t_hi):
        r = (t * BLOCK_R + tl.arange(0, BLOCK_R)).to(tl.int64)
        r_mask = r < R
        if ROW:
            offs = base[:, None] + r[None, :]
            mask = p_mask[:, None] & r_mask[None, :]
            cand = r[None, :] + tl.zeros([BLOCK_P, BLOCK_R], tl.int64)
        else:
            offs = r[:, None] * inner + base[None, :]
            mask = r_mask[:, None] & p_mask[None, :]
            cand = r[:, None] + tl.zeros([BLOCK_R, BLOCK_P], tl.int64)
        # Masked lanes read +inf and can never win. fp16/bf16 values are exact in fp32.
        v = tl.load(x_ptr + offs, mask=mask, other=float("inf")).to(tl.float32)
        if FROM_PARTIALS:
            cand = tl.load(idx_in_ptr + offs, mask=mask, other=0)  # the index each partial minimum came from
        take = v < best  # strict: a later equal value in the same lane never replaces the earlier one
        best = tl.where(take, v, best)
        best_idx = tl.where(take, cand, best_idx)

    # Merge the lanes: the minimum, then the smallest index among the lanes holding it. (A slice of +inf only
    # never updates a lane and gets index 0, its first, as in PyTorch.)
    if ROW:
        low = tl.min(best, axis=1)
        idx = tl.min(tl.where(best == low[:, None], best_idx, 9223372036854775807), axis=1)
    else:
        low = tl.min(best, axis=0)
        idx = tl.min(tl.where(best == low[None, :], best_idx, 9223372036854775807), axis=0)
    dest = split.to(tl.int64) * out_split_stride + out_idx
    tl.store(idx_out_ptr + dest, idx, mask=p_mask)
    if TO_PARTIALS:  # a share of a split reduction also writes its minimum for the merge
        tl.store(val_out_ptr + dest, low, mask=p_mask)


def _launch(x, idx_in, out, outer, R, inner, allow_split):
    """out[o * inner + c] = first argmin over r < R of x[(o * R + r) * inner + c] (x contiguous)."""
    row = inner == 1
    tile = TILE_BYTES // x.element_size()
    if row:
        BLOCK_R = min(triton.next_power_of_2(R), 1024)
        BLOCK_P = min(triton.next_power_of_2(outer), max(1, tile // BLOCK_R))
        n_p_blocks = triton.cdiv(outer, BLOCK_P)
        n_programs = n_p_blocks
    else:
        BLOCK_P = min(triton.next_power_of_2(inner), COL_BYTES // x.element_size())
        BLOCK_R = min(triton.next_power_of_2(R), max(1, tile // BLOCK_P))
        n_p_blocks = triton.cdiv(inner, BLOCK_P)
        n_programs = outer * n_p_blocks
    n_r_tiles = triton.cdiv(R, BLOCK_R)

    splits = 1
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    target = PROGRAMS_PER_SM * sms
    if allow_split and n_programs < target and n_r_tiles >= 4:
        splits = min(triton.cdiv(target, n_programs), n_r_tiles // 2)
    tiles_per_split = triton.cdiv(n_r_tiles, splits)
    splits = triton.cdiv(n_r_tiles, tiles_per_split)

    n_out = outer * inner
    if splits == 1:
        vals, idxs = None, out
    else:
        vals = torch.empty((splits, n_out), dtype=torch.float32, device=x.device)
        idxs = torch.empty((splits, n_out), dtype=torch.int64, device=x.device)
    _argmin_kernel[(n_programs, splits)](
        x, idx_in, vals, idxs, outer, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, n_out,
        ROW=row, FROM_PARTIALS=idx_in is not None, TO_PARTIALS=splits > 1, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R,
        num_warps=8 if BLOCK_P * BLOCK_R >= 4096 else 4,
    )
    if splits > 1:
        _launch(vals, idxs, out, 1, splits, n_out, allow_split=False)


def argmin(input, dim=None, keepdim=False):
    x = input.contiguous()
    nd = x.dim()
    if dim is None:
        outer, R, inner = 1, x.numel(), 1
        out_shape = [1] * nd if keepdim else []
    else:
        shape = list(x.shape) if nd > 0 else [1]
        d = dim % len(shape)
        outer, R, inner = math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :])
        out_shape = shape[:d] + ([1] if keepdim else []) + shape[d + 1 :] if nd > 0 else []
    if R == 0:
        raise IndexError("argmin(): expected a non-empty reduction")
    out = torch.empty(outer * inner, dtype=torch.int64, device=x.device)
    if out.numel():
        _launch(x, None, out, outer, R, inner, allow_split=True)
    return out.view(out_shape)
