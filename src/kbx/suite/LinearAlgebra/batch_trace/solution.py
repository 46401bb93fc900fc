"""Batched trace in Triton: each program sums the diagonals of BLOCK_B matrices, reading only the diagonal.

Tiling. The input is viewed as (batch, M, N) with its own strides (a copy only if the batch dims cannot be
merged). Diagonal element i of matrix b sits at b * stride_b + i * (stride_m + stride_n), so a program loads a
BLOCK_B x BLOCK_D tile of (matrix, diagonal position) pairs, adds it into an fp32 accumulator, walks the diagonal
in BLOCK_D steps (one step for small matrices, many for a single large one) and reduces the tile along the
diagonal axis at the end: one store per matrix, rounded once to the output dtype.

Memory traffic. Only diagonal elements are loaded, but each lands in its own 32-byte sector: for a batch of
(6291456, 16, 16) fp32 matrices (64-byte rows) that is half of the 6.4 GB input, about 1.1 ms at ~3 TB/s on an
H100, the same traffic as eager `diagonal().sum(-1)`. Batch offsets are 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _trace_kernel(x_ptr, out_ptr, B, D, stride_b, stride_diag,
                  BLOCK_B: tl.constexpr, BLOCK_D: tl.constexpr):
    mats = tl.program_id(0).to(tl.int64) * BLOCK_B + tl.arange(0, BLOCK_B)
    mats_ok = mats < B
    base = x_ptr + mats * stride_b
    acc = tl.zeros((BLOCK_B, BLOCK_D), dtype=tl.float32)
    for start in range(0, D, BLOCK_D):
        i = start + tl.arange(0, BLOCK_D)
        mask = mats_ok[:, None] & (i[None, :] < D)
        acc += tl.load(base[:, None] + i[None, :].to(tl.int64) * stride_diag, mask=mask, other=0.0).to(tl.float32)
    tl.store(out_ptr + mats, tl.sum(acc, axis=1).to(out_ptr.dtype.element_ty), mask=mats_ok)


def batch_trace(input):
    M, N = input.shape[-2], input.shape[-1]
    x = input.reshape(-1, M, N)  # a view whenever the batch dims merge; a copy otherwise
    out = torch.empty(input.shape[:-2], dtype=input.dtype, device=input.device)
    B, D = x.shape[0], min(M, N)
    if B == 0:
        return out
    BLOCK_D = min(triton.next_power_of_2(max(D, 1)), 128)
    BLOCK_B = max(2048 // BLOCK_D, 1)
    _trace_kernel[(triton.cdiv(B, BLOCK_B),)](
        x, out, B, D, x.stride(0), x.stride(1) + x.stride(2),
        BLOCK_B=BLOCK_B, BLOCK_D=BLOCK_D, num_warps=4,
    )
    return out
