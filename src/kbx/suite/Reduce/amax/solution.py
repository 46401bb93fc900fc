"""Maximum over any set of dims in Triton: one coalesced streaming pass, optional split.

A maximum is bound by memory traffic: every input element is read once (4 bytes in fp32, 2 in fp16/bf16) and
the output is tiny by comparison, so the goal is to read the input once, coalesced, with enough bytes in flight.
The result is one of the inputs, so it is exact whatever the order of the comparisons.

Host side (no data movement for the common cases): the problem is put in the form (outer, R, inner), where R is
the number of elements compared for one output. With reduced dims that are adjacent in the (contiguous) input,
this is a plain view: dim=-1 gives inner = 1, dim=0 gives outer = 1, a middle dim or a run of dims gives both.
Non-adjacent reduced dims (e.g. dims (0, 2)) and non-contiguous inputs are first copied into that order with
`permute(kept + reduced).contiguous()`, one extra read and write of the input that no bench workload needs.

Tiling (one kernel, two layouts chosen at compile time):
- ROW (inner == 1, reduced elements contiguous): a program owns BLOCK_P rows and walks them in
  [BLOCK_P, BLOCK_R] tiles along the row (several short rows per tile, up to 2048 elements of one long row);
- COL (inner > 1, kept elements contiguous): a program owns BLOCK_P adjacent outputs of one outer index and walks
  down R in [BLOCK_R, BLOCK_P] tiles; each tile row is a 256-byte contiguous segment, so the loads coalesce and
  every output is reduced by its own lanes with no cross-lane work until the end.
Tiles hold 16 KB of input; each is folded into a register tile of running maxima (started at -inf, which masked
lanes also read), collapsed by one `tl.max` at the end.

Split reduction: when there are too few outputs to give every SM four programs (every dim, a few long columns),
the tiles of R are shared out over a second grid axis; each share writes a partial maximum and a second launch
of the same kernel (COL layout over the (splits, outputs) partials) takes their maximum. All offsets are int64
(the benches hold 2^30 elements).

Expected on an H100 (~3 TB/s): the fp32 benches read 4.3 GB (about 1.4 ms), the fp16/bf16 ones 2.1 GB (about
0.7 ms), for the last, first and a middle dim alike.
"""


import math

import torch
import triton
import triton.language as tl

TILE_BYTES = 16384  # bytes of input per loaded tile
COL_BYTES = 256  # COL layout: bytes of one tile row (64 fp32 or 128 fp16 outputs side by side)
PROGRAMS_PER_SM = 4  # split the reduction when fewer programs than this per SM would run


@triton.jit
def _amax_kernel(
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

    acc = tl.full([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], float("-inf"), dtype=tl.float32)
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
        # Masked lanes read -inf, the identity of the maximum (never 0: whole slices may be negative). fp16 and
        # bf16 values are exact in fp32, so comparing in fp32 loses nothing.
        acc = tl.maximum(acc, tl.load(x_ptr + offs, mask=mask, other=float("-inf")).to(tl.float32))
    total = tl.max(acc, axis=1 if ROW else 0)
    tl.store(out_ptr + split.to(tl.int64) * out_split_stride + out_idx, total.to(out_ptr.dtype.element_ty),
             mask=p_mask)


def _launch(x, out, outer, R, inner, allow_split):
    """out[o * inner + c] = max over r < R of x[(o * R + r) * inner + c] (x contiguous)."""
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
    # With several splits, each writes its partial maxima (in the input dtype: exact); a second pass merges them.
    dest = out if splits == 1 else torch.empty((splits, n_out), dtype=x.dtype, device=x.device)
    _amax_kernel[(n_programs, splits)](
        x, dest, outer, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, n_out,
        ROW=row, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R, num_warps=8 if BLOCK_P * BLOCK_R >= 4096 else 4,
    )
    if splits > 1:
        _launch(dest, out, 1, splits, n_out, allow_split=False)


def amax(input, dim=(), keepdim=False):
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
    if R == 0:
        raise IndexError("amax(): expected a non-empty reduction (the maximum of nothing is undefined)")
    if out.numel() == 0:
        return out

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
