"""Lower triangle in Triton: 2-D tiles, the dropped part is never read.

Tiling. The input is viewed as (batch, M, N) with its own strides (no copy unless the batch dims cannot be merged
into one). Program (t, b) owns one BLOCK_M x BLOCK_N tile of matrix b: it loads the elements with
col - row <= diagonal (the mask also covers the ragged edges) and writes the whole tile, zeros included, to a new
contiguous output. A tile that lies entirely above the kept band issues no loads at all, so the kernel reads about
half the input and writes all of the output: one pass, no extra traffic.

Memory traffic. For (12, 8192, 8192) fp32 that is ~1.6 GB read and 3.2 GB written; at ~3 TB/s on an H100 about
1.6 ms (eager `torch.tril` reads and writes everything, ~6.4 GB, ~2.2 ms). Rows of BLOCK_N = 128 contiguous
elements give 16-byte vector loads and stores for contiguous inputs; a column-major input is read in place with
its strides (slower, uncoalesced along rows, but correct). The batch offset is 64-bit.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _tril_kernel(x_ptr, y_ptr, M, N, diagonal,
                 sxb, sxm, sxn, syb, sym, syn,
                 BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    tiles_n = tl.cdiv(N, BLOCK_N)
    pid = tl.program_id(0)
    b = tl.program_id(1).to(tl.int64)
    rows = (pid // tiles_n) * BLOCK_M + tl.arange(0, BLOCK_M)
    cols = (pid % tiles_n) * BLOCK_N + tl.arange(0, BLOCK_N)
    inside = (rows[:, None] < M) & (cols[None, :] < N)
    # Keep the lower band: col - row <= diagonal. Masked-off lanes load nothing and read back as zero.
    keep = inside & ((cols[None, :] - rows[:, None]) <= diagonal)
    x = tl.load(x_ptr + b * sxb + rows[:, None] * sxm + cols[None, :] * sxn, mask=keep, other=0)
    tl.store(y_ptr + b * syb + rows[:, None] * sym + cols[None, :] * syn, x, mask=inside)


def tril(input, diagonal=0):
    M, N = input.shape[-2], input.shape[-1]
    x = input.reshape(-1, M, N)  # a view whenever the batch dims merge; a copy otherwise
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    y = out.view(-1, M, N)
    if out.numel() == 0:
        return out
    BLOCK_M, BLOCK_N = 32, 128
    grid = (triton.cdiv(M, BLOCK_M) * triton.cdiv(N, BLOCK_N), x.shape[0])
    _tril_kernel[grid](x, y, M, N, diagonal, *x.stride(), *y.stride(),
                       BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, num_warps=4)
    return out
