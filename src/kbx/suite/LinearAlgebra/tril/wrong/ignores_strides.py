"""Indexes the input as if it were contiguous (row stride N, column stride 1): right for contiguous inputs,
wrong for the transposed and strided views in the check workloads."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _tril_kernel(x_ptr, y_ptr, M, N, diagonal, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid = tl.program_id(0)
    base = tl.program_id(1).to(tl.int64) * M * N
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    keep = inside & ((cols[None, :] - rows[:, None]) <= diagonal)
    offsets = base + rows[:, None] * N + cols[None, :]
    x = tl.load(x_ptr + offsets, mask=keep, other=0)
    tl.store(y_ptr + offsets, x, mask=inside)


def tril(input, diagonal=0):
    M, N = input.shape[-2], input.shape[-1]
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    batch = out.numel() // (M * N)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 128), batch)
    _tril_kernel[grid](input, out, M, N, diagonal, BLOCK_M=32, BLOCK_N=128)
    return out
