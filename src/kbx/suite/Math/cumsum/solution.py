"""Cumulative sum along any dim in Triton: a blocked scan that carries each block's total into the next.

The input is viewed as (outer, L, inner), L being the scanned dim, without copying whenever the dims before and
after `dim` each merge into one strided dim (true for contiguous, transposed-last-two and strided-last-dim
inputs; anything else is made contiguous first). Every one of the outer * inner independent scans is a column
`j` of that view; the output is written contiguous.

Tiling: a program owns BLOCK_J independent scans and walks L in chunks of BLOCK_L. Each chunk is a [BLOCK_J,
BLOCK_L] tile: `tl.cumsum` scans it along L in registers, the running total carried from the previous chunks is
added, and the chunk's row sums are added to the carry. One read and one write of every element, so the scan is
memory-bound like a copy. The tile shape follows the memory layout: when the scanned dim is the contiguous one
(inner = 1) the tile is wide along L (up to 1024) with a few rows; when the scan runs across rows (inner > 1) the
tile is 32 scans wide and 128 steps deep, so each chunk reads 32 contiguous elements (a 128-byte line in fp32) per
scan step and loads stay coalesced. The sum is carried in fp32 (bf16 is widened on load and each output rounded
once), as PyTorch does. Offsets are int64.

Expected H100 (~3 TB/s) times: bench_last and bench_first fp32 (2.1 GB read, 2.1 GB written) about 1.4 ms each,
bf16 about 0.7 ms; the serial walk over L is spread over outer * inner / BLOCK_J programs (4096 or 512 here),
enough to fill the GPU.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cumsum_kernel(
    x_ptr, out_ptr,
    n_scans, L, inner,
    s_outer, s_l, s_inner,
    BLOCK_J: tl.constexpr, BLOCK_L: tl.constexpr,
):
    # The independent scans this program owns, split into (outer, inner) coordinates once.
    j = tl.program_id(0).to(tl.int64) * BLOCK_J + tl.arange(0, BLOCK_J)
    j_mask = j < n_scans
    o_idx = j // inner
    i_idx = j % inner
    x_base = o_idx * s_outer + i_idx * s_inner
    # Output is contiguous (outer, L, inner).
    out_base = o_idx * L * inner + i_idx

    carry = tl.zeros([BLOCK_J], dtype=tl.float32)
    for l0 in range(0, L, BLOCK_L):
        l = l0 + tl.arange(0, BLOCK_L).to(tl.int64)
        mask = j_mask[:, None] & (l < L)[None, :]
        x = tl.load(x_ptr + x_base[:, None] + l[None, :] * s_l, mask=mask, other=0.0).to(tl.float32)
        # Inclusive scan of this chunk, shifted by the total of all earlier chunks.
        y = tl.cumsum(x, axis=1) + carry[:, None]
        tl.store(out_ptr + out_base[:, None] + l[None, :] * inner, y.to(out_ptr.dtype.element_ty), mask=mask)
        # Masked lanes hold 0, so the scan's last lane is the running total through this chunk. (Read it from the
        # scan rather than reducing x a second time: Triton 3.6 failed to compile a scan and a sum of one tile.)
        carry = tl.sum(tl.where(tl.arange(0, BLOCK_L)[None, :] == BLOCK_L - 1, y, 0.0), axis=1)


def _as_3d(x, dim):
    """Sizes and strides of x viewed as (outer, L, inner) around `dim`, or None if the outer or inner dims
    cannot be merged into one strided dim without copying."""

    def merge(sizes, strides):
        size, stride = 1, 0
        for n, s in zip(reversed(sizes), reversed(strides)):
            if n == 1:
                continue
            if size == 1:
                size, stride = n, s
            elif s == stride * size:
                size *= n
            else:
                return None
        return size, stride

    shape, strides = list(x.shape), list(x.stride())
    outer = merge(shape[:dim], strides[:dim])
    inner = merge(shape[dim + 1:], strides[dim + 1:])
    if outer is None or inner is None:
        return None
    return outer, (shape[dim], strides[dim]), inner


def cumsum(input, dim):
    dim = dim % max(input.dim(), 1)
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if input.numel() == 0:
        return out
    x = input if input.dim() > 0 else input.reshape(1)
    view = _as_3d(x, dim)
    if view is None:
        x = x.contiguous()
        view = _as_3d(x, dim)
    (n_outer, s_outer), (L, s_l), (inner, s_inner) = view

    n_scans = n_outer * inner
    if inner == 1:
        # Scanning the contiguous dim: wide along L, a few scans per program.
        BLOCK_L = min(triton.next_power_of_2(L), 1024)
        BLOCK_J = min(triton.next_power_of_2(n_scans), max(1, 4096 // BLOCK_L))
    else:
        # Scanning across rows: 32 neighbouring scans (one 128-byte line per step in fp32) and 128 steps of L per
        # chunk, so that even 16384 scans make 512 programs to spread over the SMs.
        BLOCK_J = min(triton.next_power_of_2(n_scans), 32)
        BLOCK_L = min(triton.next_power_of_2(L), max(1, 4096 // BLOCK_J))
    grid = (triton.cdiv(n_scans, BLOCK_J),)
    _cumsum_kernel[grid](
        x, out, n_scans, L, inner, s_outer, s_l, s_inner,
        BLOCK_J=BLOCK_J, BLOCK_L=BLOCK_L, num_warps=4,
    )
    return out
