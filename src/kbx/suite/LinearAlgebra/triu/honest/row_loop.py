"""An honest triu as a third party writes it: one program per matrix row, a loop over its columns.

Every row of every matrix gets a program of its own (a 1-D grid over batch x rows); the program walks the row in
chunks of BLOCK columns, reading the input through its own strides (no contiguous copy) and writing the row of a
new contiguous output, keeping element j of row i where j - i >= diagonal and writing zero elsewhere. It differs
from the suite's solution, which tiles each matrix in 2-D blocks. Bool inputs are handled as bytes.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _triu_rows(x_ptr, y_ptr, M, N, diagonal, sxb, sxm, sxn, BLOCK: tl.constexpr):
    r = tl.program_id(0).to(tl.int64)
    b = r // M
    i = r % M
    src = x_ptr + b * sxb + i * sxm
    dst = y_ptr + r * N
    for start in range(0, N, BLOCK):
        j = start + tl.arange(0, BLOCK)
        inside = j < N
        keep = inside & ((j - i) >= diagonal)
        v = tl.load(src + j * sxn, mask=keep, other=0)
        tl.store(dst + j, v, mask=inside)


def triu(input, diagonal=0):
    M, N = input.shape[-2], input.shape[-1]
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if out.numel() == 0:
        return out
    x = input.reshape(-1, M, N)
    y = out.view(-1, M, N)
    if x.dtype == torch.bool:
        x, y = x.view(torch.uint8), y.view(torch.uint8)
    BLOCK = 256
    _triu_rows[(x.shape[0] * M,)](x, y, M, N, int(diagonal), x.stride(0), x.stride(1), x.stride(2), BLOCK=BLOCK)
    return out
