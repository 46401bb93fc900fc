"""Product along one dim in Triton: one coalesced streaming pass, fp32 accumulation, optional split.

A product is bound by memory traffic like a sum: every input element is read once and costs one multiply. The
input is viewed as (outer, R, inner), where R is the reduced dim, without copying a contiguous input (a
non-contiguous one is made contiguous first, one extra read and write that no bench workload needs).

Tiling (one kernel, two layouts chosen at compile time):
- ROW (inner == 1, reducing the contiguous last dim): a program owns BLOCK_P rows and walks them in
  [BLOCK_P, BLOCK_R] tiles along the row;
- COL (inner > 1, a leading or middle dim): a program owns BLOCK_P adjacent outputs of one outer index and walks
  down R in [BLOCK_R, BLOCK_P] tiles; each tile row is a 256-byte contiguous segment, so loads coalesce.
Tiles hold 16 KB of input and are multiplied into an fp32 register tile started at 1 (masked lanes also read 1,
the identity; reading 0 there would zero every product). A product tree at the end (pairwise halvings, then one
`tl.reduce`) collapses the lanes.

Split reduction: with too few outputs to give every SM four programs (a 1-D input, a few long columns), the tiles
of R are shared out over a second grid axis; each share writes an fp32 partial product and a second launch of the
same kernel multiplies the partials. Deterministic, no atomics; int64 offsets.

Expected on an H100 (~3 TB/s): the fp32 benches read 4.3 GB (about 1.4 ms).
"""


import math

import torch
import triton
import triton.language as tl

TILE_BYTES = 16384  # bytes of input per loaded tile
COL_BYTES = 256  # COL layout: bytes of one tile row (64 fp32 or 128 fp16 outputs side by side)
PROGRAMS_PER_SM = 4  # split the reduction when fewer programs than this per SM would run


@triton.jit
def _multiply(a, b):
    return a * b


@triton.jit
def _halve(acc, ROWS: tl.constexpr, WIDTH: tl.constexpr):
    # [ROWS, WIDTH] -> [ROWS, WIDTH // 2]: multiply neighbouring lanes pairwise (one level of a product tree).
    a, b = tl.split(tl.reshape(acc, [ROWS, WIDTH // 2, 2]))
    return a * b


@triton.jit
def _row_products(acc, ROWS: tl.constexpr, WIDTH: tl.constexpr):
    # The product of each row of acc: elementwise halvings down to 8 lanes, then one tl.reduce. (A tl.reduce with
    # a custom combine over the whole tile costs the same on a GPU but is ten times slower in the interpreter.)
    # The branches are resolved at compile time, so acc may change shape.
    if WIDTH >= 16:
        acc = _halve(acc, ROWS, WIDTH)
    if WIDTH >= 32:
        acc = _halve(acc, ROWS, WIDTH // 2)
    if WIDTH >= 64:
        acc = _halve(acc, ROWS, WIDTH // 4)
    if WIDTH >= 128:
        acc = _halve(acc, ROWS, WIDTH // 8)
    if WIDTH >= 256:
        acc = _halve(acc, ROWS, WIDTH // 16)
    if WIDTH >= 512:
        acc = _halve(acc, ROWS, WIDTH // 32)
    if WIDTH >= 1024:
        acc = _halve(acc, ROWS, WIDTH // 64)
    if WIDTH >= 2048:
        acc = _halve(acc, ROWS, WIDTH // 128)
    if WIDTH >= 4096:
        acc = _halve(acc, ROWS, WIDTH // 256)
    return tl.reduce(acc, 1, _multiply)


@triton.jit
def _prod_kernel(
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

    acc = tl.full([BLOCK_P, BLOCK_R] if ROW else [BLOCK_R, BLOCK_P], 1.0, dtype=tl.float32)
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
        # Masked lanes read 1, the identity of the product; multiply in fp32 whatever the input dtype.
        acc *= tl.load(x_ptr + offs, mask=mask, other=1.0).to(tl.float32)
    if ROW:
        total = _row_products(acc, BLOCK_P, BLOCK_R)
    else:
        total = _row_products(tl.trans(acc), BLOCK_P, BLOCK_R)
    tl.store(out_ptr + split.to(tl.int64) * out_split_stride + out_idx, total.to(out_ptr.dtype.element_ty),
             mask=p_mask)


def _launch(x, out, outer, R, inner, allow_split):
    """out[o * inner + c] = product over r < R of x[(o * R + r) * inner + c] (x contiguous)."""
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
    # With several splits, each writes an fp32 partial product; the second pass multiplies them.
    dest = out if splits == 1 else torch.empty((splits, n_out), dtype=torch.float32, device=x.device)
    _prod_kernel[(n_programs, splits)](
        x, dest, outer, R, inner, n_p_blocks, n_r_tiles, tiles_per_split, n_out,
        ROW=row, BLOCK_P=BLOCK_P, BLOCK_R=BLOCK_R, num_warps=8 if BLOCK_P * BLOCK_R >= 4096 else 4,
    )
    if splits > 1:
        _launch(dest, out, 1, splits, n_out, allow_split=False)


def prod(input, dim, keepdim=False):
    x = input.contiguous()
    shape = list(x.shape) if x.dim() > 0 else [1]
    d = dim % len(shape)
    outer, R, inner = math.prod(shape[:d]), shape[d], math.prod(shape[d + 1 :])
    out_shape = (shape[:d] + ([1] if keepdim else []) + shape[d + 1 :]) if input.dim() > 0 else []
    out = torch.empty(outer * inner, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out.reshape(out_shape)
    if R == 0:
        return out.fill_(1.0).reshape(out_shape)  # the empty product
    _launch(x, out, outer, R, inner, allow_split=True)
    return out.reshape(out_shape)
