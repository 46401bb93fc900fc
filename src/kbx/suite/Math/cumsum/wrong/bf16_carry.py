"""Carries the running total from chunk to chunk as the last output it stored, rounded to the output dtype.

The solution's blocked scan, except that each chunk's carry is its last output element as written (bf16 in the
bf16 cases; fp32 is unaffected): a kernel that reads the carry back from the output it just stored, or keeps it
in the output's dtype, makes the same mistake. Every chunk then adds up to half a bf16 ulp of the running sum to
everything after it, and the error grows with the number of chunks: the scan is no longer the fp32 scan rounded
once that the contract allows.

GPU only: the check workloads have at most 17 chunks per scan (tiles of 1024 along a contiguous dim, of 128 to 256
across rows) and it passes them on the CPU; bench_first scans 32768 rows in 256 chunks of 128. Simulated in
PyTorch on the CPU (the chunks scanned in float64, the carry rounded to bf16 after each, judged by the truth rule
on the first 48 of bench_first's 16384 columns, seeds 0-2): 13,719 to 48,345 of 1,572,864 elements exceed their
bound, the worst by 1.44x to 2.13x, and the normwise error (0.0090 to 0.0104) reaches the allowed 0.0099. The full
bench holds 341 times as many columns, so on a GPU it fails by far (the check workloads, simulated alike, pass).

On an H200 (session 26, 2026-11-29) it PASSED nonetheless: PyTorch's CUDA cumsum adds bf16 in bf16 along an outer
dim, so the eager reference's own error on bench_first is huge and its error envelope covered this kernel. The eager
reference is since no yardstick where it breaks the contract itself (`kbx.evaluation.trusted.against_truth.
standing`); the case is then judged as beside the CPU's exact eager, where this kernel fails.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"


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
        # The running total through this chunk is the chunk's last output, as stored (the bug: rounded to the
        # output dtype, bf16, before it is carried on).
        last = tl.sum(tl.where(tl.arange(0, BLOCK_L)[None, :] == BLOCK_L - 1, y, 0.0), axis=1)
        carry = last.to(out_ptr.dtype.element_ty).to(tl.float32)


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
