"""Upper and lower swapped: keeps col - row <= diagonal (what tril keeps) instead of col - row >= diagonal."""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _triu_kernel(x_ptr, y_ptr, M, N, diagonal, sxb, sxm, sxn, syb, sym, syn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    keep = inside & ((cols[None, :] - rows[:, None]) <= diagonal)
    x = tl.load(x_ptr + b * sxb + rows[:, None] * sxm + cols[None, :] * sxn, mask=keep, other=0)
    tl.store(y_ptr + b * syb + rows[:, None] * sym + cols[None, :] * syn, x, mask=inside)


def triu(input, diagonal=0):
    M, N = input.shape[-2], input.shape[-1]
    x = input.reshape(-1, M, N)
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    y = out.view(-1, M, N)
    if x.dtype == torch.bool:
        x, y = x.view(torch.uint8), y.view(torch.uint8)
    grid = (triton.cdiv(M, 32) * triton.cdiv(N, 128), x.shape[0])
    _triu_kernel[grid](x, y, M, N, diagonal, *x.stride(), *y.stride(), BLOCK_M=32, BLOCK_N=128)
    return out
