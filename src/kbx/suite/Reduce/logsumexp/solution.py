"""Log-sum-exp over any set of dims in Triton: one streaming pass with per-lane online rescaling.

    logsumexp(x) = m + log(sum exp(x - m)),  m = max(x)

Subtracting the maximum keeps exp() in range, but the maximum is only known after the whole slice is read. The
online form avoids a second pass: every tile LANE keeps a running maximum m and a sum s of exp(x - m); when a
new element raises m, s is rescaled by exp(m_old - m_new) first. At the end the lanes of an output are merged
the same way (M = max of the lane maxima, S = sum of s_l * exp(m_l - M)) and the result is M + log(S). Lanes
that have seen only -inf (masked tail lanes, masked logits) keep m = -inf and s = 0 and drop out of the merge; an
output whose elements are all -inf gives -inf + log(0) = -inf, as in PyTorch. An output with a +inf element is
+inf, also as in PyTorch: its maximum is +inf, and the result is set to it (the rescaling's inf - inf is NaN).

Host side (no data movement for the common cases): the problem is put in the form (outer, R, inner), where R is
the number of elements per output. With reduced dims that are adjacent in the (contiguous) input this is a view
(dim=-1: inner = 1, dim=0: outer = 1); non-adjacent dims and non-contiguous inputs are first copied into that order
with `permute(kept + reduced).contiguous()`, one extra read and write that no bench workload needs.

Tiling (one kernel, two layouts chosen at compile time): ROW (inner == 1) tiles are [BLOCK_P rows, BLOCK_R
contiguous elements]; COL (inner > 1) tiles are [BLOCK_R, BLOCK_P adjacent outputs], each tile row a 256-byte
contiguous segment, so every output is reduced by its own lanes with no cross-lane work inside the loop. Tiles
hold 16 KB of input (8 KB in the COL layout's per-lane state would leave too few loads in flight).

Split reduction: with too few outputs to give every SM four programs (dim=0 of a narrow tensor, every dim), the
tiles of R are shared out over a second grid axis; each share writes the log-sum-exp of its part in fp32, and a
second launch of the same kernel takes the log-sum-exp of the shares (log-sum-exp is associative).

Per element: one load, two exp (the element's and the lane's rescale factor), a max and a few FMAs; exp runs on
the SFU at 16 per clock per SM, well above the ~4 elements per clock per SM that 3 TB/s brings. Expected on an
H100: the fp32 benches read 4.3 GB (about 1.5 ms), bf16 half that.
"""


import math

import torch
import triton
import triton.language as tl

TILE_BYTES = 16384  # bytes of input per loaded tile
COL_BYTES = 256  # COL layout: bytes of one tile row (64 fp32 or 128 fp16 outputs side by side)
PROGRAMS_PER_SM = 4  # split the reduction when fewer programs than this per SM would run


@triton.jit
def _logsumexp_kernel(
    x_ptr, out_ptr,
    n_rows, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, out_split_stride,
    ROW: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_R: tl.constexpr,
):
    pid = tl.program_id(0)
    split = tl.program_id(1)
    if ROW:
        # BLOCK_P whole rows; output p is row p, whose elements start at p * R.
        p = pid * BLOCK_P + tl.arange(0, BLOCK_P)
        p_mask = p < n_rows
        base = p.to(tl.int64) * R
        out_idx = p.to(tl.int64)
    else:
        # BLOCK_P adjacent inner positions of one outer index; element (o, r, c) sits at (o * R + r) * inner + c.
        o = (pid // n_p_blocks).to(tl.int64)
        c = (pid % n_p_blocks) * BLOCK_P + tl.arange(0, BLOCK_P)
        p_mask = c < inner
        base = o * R * inner + c
        out_idx = o * inner + c

    m = tl.full([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], float("-inf"), dtype=tl.float32)
    s = tl.zeros([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], dtype=tl.float32)
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
        # Masked lanes read -inf, which adds exp(-inf) = 0. Compute in fp32 whatever the input dtype.
        v = tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32)
        m_new = tl.maximum(m, v)
        # While a lane has seen only -inf, m_new is -inf: use 0 as the reference so that no -inf - (-inf) = NaN
        # appears (both exponentials are then exp(-inf) = 0, and s stays 0).
        ref = tl.where(m_new == float("-inf"), 0.0, m_new)
        s = s * tl.exp(m - ref) + tl.exp(v - ref)
        m = m_new

    # Merge the lanes of each output: M = max_l m_l, S = sum_l s_l * exp(m_l - M).
    if ROW:
        top = tl.max(m, axis=1)
        top_ref = tl.where(top == float("-inf"), 0.0, top)
        total = tl.sum(s * tl.exp(m - top_ref[:, None]), axis=1)
    else:
        top = tl.max(m, axis=0)
        top_ref = tl.where(top == float("-inf"), 0.0, top)
        total = tl.sum(s * tl.exp(m - top_ref[None, :]), axis=0)
    # All -inf: 0 + log(0) = -inf. A +inf element makes the sum +inf, as in PyTorch; its lane formed inf - inf = NaN
    # on the way (in s, and in the merge's m - top), so the result is set rather than computed.
    result = tl.where(top == float("inf"), float("inf"), top_ref + tl.log(total))
    tl.store(out_ptr + split.to(tl.int64) * out_split_stride + out_idx, result.to(out_ptr.dtype.element_ty),
             mask=p_mask)


def _launch(x, out, outer, R, inner, allow_split):
    """out[o * inner + c] = logsumexp over r < R of x[(o * R + r) * inner + c] (x contiguous)."""
    row = inner == 1
    tile = TILE_BYTES // x.element_size()
    if row:
        BLOCK_R = min(triton.next_power_of_2(R), 2048)
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
    # With several splits, each writes the fp32 log-sum-exp of its share; the second pass combines them.
    dest = out if splits == 1 else torch.empty((splits, n_out), dtype=torch.float32, device=x.device)
    _logsumexp_kernel[(n_programs, splits)](
        x, dest, outer, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, n_out,
        ROW=row, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R, num_warps=8 if BLOCK_P * BLOCK_R >= 4096 else 4,
    )
    if splits > 1:
        _launch(dest, out, 1, splits, n_out, allow_split=False)


def logsumexp(input, dim, keepdim=False):
    nd = input.dim()
    if not isinstance(dim, int) and len(dim) == 0:
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
        return out.fill_(float("-inf"))  # the log of an empty sum

    # (outer, R, inner): a view when the reduced dims are one adjacent run of a contiguous tensor.
    adjacent = reduced == list(range(reduced[0], reduced[-1] + 1)) if reduced else True
    if adjacent and input.is_contiguous():
        x = input
        outer = math.prod(input.shape[: reduced[0]]) if reduced else 1
    else:
        x = input.permute(kept + reduced).contiguous()
        outer = out.numel()
    inner = out.numel() // outer
    _launch(x, out, outer, R, inner, allow_split=True)
    return out
