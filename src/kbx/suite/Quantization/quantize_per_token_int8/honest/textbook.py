"""An honest quantize_per_token_int8 as a third party writes it: per-row fp32 absmax pass, then rint(x / scale) pass.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _per_token_kernel(x_ptr, q_ptr, s_ptr, K, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * K
    amax = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, K, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < K, other=0.0).to(tl.float32)
        amax = tl.maximum(amax, tl.abs(x))
    row_amax = tl.max(amax, axis=0)
    scale = row_amax / 127.0
    scale = tl.where(row_amax == 0.0, 1.0, scale)
    tl.store(s_ptr + row, scale)
    for start in range(0, K, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < K
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        q = libdevice.rint(x / scale)
        q = tl.minimum(tl.maximum(q, -127.0), 127.0)
        tl.store(q_ptr + row * K + cols, q.to(tl.int8), mask=mask)


def quantize_per_token_int8(input):
    K = input.shape[-1]
    x = input.contiguous().view(-1, K)
    rows = x.shape[0]
    q = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    scale = torch.empty(tuple(input.shape[:-1]) + (1,), dtype=torch.float32, device=input.device)
    if rows > 0:
        BLOCK_SIZE = min(triton.next_power_of_2(max(K, 1)), 4096)
        _per_token_kernel[(rows,)](x, q, scale, K, BLOCK_SIZE=BLOCK_SIZE)
    return q, scale
