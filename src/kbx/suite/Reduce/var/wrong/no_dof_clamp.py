"""Divides by n - correction as written in the textbook, without PyTorch's max(0, n - correction).

Correct whenever correction < n. torch.var divides by max(0, n - correction): with correction >= n (the unbiased
variance of a single sample, correction=2 on pairs, ...) the result is inf, or NaN where the sum of squares is 0.
Here a correction above n divides by a negative count and returns a finite negative "variance" (correction = n
still divides by 0 and agrees). `check_correction_past_n` (pairs, correction=3) catches it: -M2 where the reference
is inf.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

TILE_BYTES = 8192  # bytes of input per loaded tile
COL_BYTES = 128  # COL layout: bytes of one tile row
PROGRAMS_PER_SM = 4  # split the reduction when fewer programs than this per SM would run


@triton.jit
def _chan_merge(cnt, mean, m2, AXIS: tl.constexpr):
    # Merge the Welford states along AXIS: total count, weighted mean, and M2 plus each state's offset term.
    n = tl.sum(cnt, axis=AXIS)
    mu = tl.sum(cnt * mean, axis=AXIS) / tl.maximum(n, 1.0)
    dev = mean - tl.expand_dims(mu, AXIS)
    m2_total = tl.sum(m2 + cnt * dev * dev, axis=AXIS)
    return n, mu, m2_total


@triton.jit
def _var_kernel(
    x_ptr, out_ptr, cnt_ptr, mean_ptr, m2_ptr,
    n_rows, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, out_split_stride, correction,
    ROW: tl.constexpr, PARTIAL: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr,
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

    # Shift every output's elements by its first element: the variance does not change, but the running means
    # stay near 0 instead of near a large offset, so their rounding errors stay small next to the spread (with an
    # offset of 1000 and a spread of 1, unshifted fp32 Welford loses about 1e-5 relative; shifted, ~1e-7).
    shift = tl.load(x_ptr + base, mask=p_mask, other=0.0).to(tl.float32)
    shift = shift[:, None] if ROW else shift[None, :]
    cnt = tl.zeros([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], dtype=tl.float32)
    mean = tl.zeros([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], dtype=tl.float32)
    m2 = tl.zeros([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], dtype=tl.float32)
    t_lo = split * tiles_per_split
    t_hi = tl.minimum(t_lo + tiles_per_split, n_r_tiles)
    for t in range(t_lo, t_hi):
        r = t * BLOCK_R + tl.arange(0, BLOCK_R)
        r_mask = r < R
        if ROW:
            offs = base[:, None] + r.to(tl.int64)[None, :]
            mask = p_mask[:, None] & r_mask[None, :]
        else:
            offs = r.to(tl.int64)[:, None] * inner + base[None, :]
            mask = r_mask[:, None] & p_mask[None, :]
        v = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32) - shift
        # Welford update for the lanes holding an element; masked lanes keep their state.
        cnt = cnt + mask.to(tl.float32)
        delta = tl.where(mask, v - mean, 0.0)
        mean = mean + delta / tl.maximum(cnt, 1.0)
        m2 = m2 + delta * (v - mean)

    n, mu, m2_total = _chan_merge(cnt, mean, m2, 1 if ROW else 0)
    dest = split.to(tl.int64) * out_split_stride + out_idx
    if PARTIAL:
        tl.store(cnt_ptr + dest, n, mask=p_mask)
        tl.store(mean_ptr + dest, mu, mask=p_mask)
        tl.store(m2_ptr + dest, m2_total, mask=p_mask)
    else:
        # dof = n - correction, unclamped: negative when correction > n.
        var = m2_total / (n - correction)
        tl.store(out_ptr + dest, var.to(out_ptr.dtype.element_ty), mask=p_mask)


@triton.jit
def _merge_splits_kernel(cnt_ptr, mean_ptr, m2_ptr, out_ptr, splits, n_out, correction,
                         BLOCK_S: tl.constexpr, BLOCK_P: tl.constexpr):
    # One [BLOCK_S, BLOCK_P] tile holds every share of BLOCK_P outputs (splits <= BLOCK_S).
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    s = tl.arange(0, BLOCK_S)
    mask = (s < splits)[:, None] & (p < n_out)[None, :]
    offs = s.to(tl.int64)[:, None] * n_out + p[None, :]
    cnt = tl.load(cnt_ptr + offs, mask=mask, other=0.0)
    mean = tl.load(mean_ptr + offs, mask=mask, other=0.0)
    m2 = tl.load(m2_ptr + offs, mask=mask, other=0.0)
    n, mu, m2_total = _chan_merge(cnt, mean, m2, 0)
    var = m2_total / (n - correction)
    tl.store(out_ptr + p, var.to(out_ptr.dtype.element_ty), mask=p < n_out)


def _launch(x, out, outer, R, inner, correction):
    """out[o * inner + c] = var over r < R of x[(o * R + r) * inner + c] (x contiguous)."""
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
    if n_programs < target and n_r_tiles >= 4:
        splits = min(triton.cdiv(target, n_programs), n_r_tiles // 2)
    tiles_per_split = triton.cdiv(n_r_tiles, splits)
    splits = triton.cdiv(n_r_tiles, tiles_per_split)

    n_out = outer * inner
    grid = (n_programs, splits)
    meta = dict(ROW=row, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R, num_warps=8 if BLOCK_P * BLOCK_R >= 2048 else 4)
    args = (outer, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, n_out, float(correction))
    if splits == 1:
        _var_kernel[grid](x, out, None, None, None, *args, PARTIAL=False, **meta)
        return
    cnt, mean, m2 = (torch.empty((splits, n_out), dtype=torch.float32, device=x.device) for _ in range(3))
    _var_kernel[grid](x, None, cnt, mean, m2, *args, PARTIAL=True, **meta)
    BLOCK_S = triton.next_power_of_2(splits)
    BLOCK_P = min(triton.next_power_of_2(n_out), max(1, 4096 // BLOCK_S))
    _merge_splits_kernel[(triton.cdiv(n_out, BLOCK_P),)](cnt, mean, m2, out, splits, n_out, float(correction),
                                                         BLOCK_S=BLOCK_S, BLOCK_P=BLOCK_P)


def var(input, dim=None, correction=1, keepdim=False):
    nd = input.dim()
    if dim is None or (not isinstance(dim, int) and len(dim) == 0):
        reduced = list(range(nd))
    else:
        reduced = sorted({d % max(nd, 1) for d in ([dim] if isinstance(dim, int) else dim)})
    reduced = [d for d in reduced if d < nd]  # a 0-d input has nothing to permute
    kept = [d for d in range(nd) if d not in reduced]
    if keepdim:
        out_shape = [1 if d in reduced else input.shape[d] for d in range(nd)]
    else:
        out_shape = [input.shape[d] for d in kept]
    R = math.prod(input.shape[d] for d in reduced)
    out = torch.empty(out_shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0 or R == 0:
        return out.fill_(float("nan"))  # the variance of nothing is NaN, as in PyTorch

    # (outer, R, inner): a view when the reduced dims are one adjacent run of a contiguous tensor.
    adjacent = reduced == list(range(reduced[0], reduced[-1] + 1)) if reduced else True
    if adjacent and input.is_contiguous():
        x = input
        outer = math.prod(input.shape[: reduced[0]]) if reduced else 1
    else:
        x = input.permute(kept + reduced).contiguous()
        outer = out.numel()
    inner = out.numel() // outer
    _launch(x, out, outer, R, inner, correction)
    return out
