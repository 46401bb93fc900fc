"""An honest searchsorted as a third party writes it: a branch-free binary search per query, compared in fp32.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _searchsorted_kernel(seq_ptr, x_ptr, y_ptr, L, Q, RIGHT: tl.constexpr, N_STEPS: tl.constexpr,
                         BLOCK_SIZE: tl.constexpr):
    # Query blocks on grid axis 0 (up to 2^31 - 1 programs), rows on axis 1 (at most 65535).
    row = tl.program_id(1).to(tl.int64)
    q = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = q < Q
    x = tl.load(x_ptr + row * Q + q, mask=mask, other=0.0).to(tl.float32)
    seq_row = seq_ptr + row * L
    lo = tl.zeros([BLOCK_SIZE], tl.int64)
    hi = tl.zeros([BLOCK_SIZE], tl.int64) + L
    for _ in range(N_STEPS):
        active = lo < hi
        mid = (lo + hi) // 2
        v = tl.load(seq_row + mid, mask=mask & active, other=0.0).to(tl.float32)
        if RIGHT:
            go_right = v <= x
        else:
            go_right = v < x
        lo = tl.where(active & go_right, mid + 1, lo)
        hi = tl.where(active & (~go_right), mid, hi)
    tl.store(y_ptr + row * Q + q, lo, mask=mask)


def searchsorted(sorted_sequence, input, right=False):
    L = sorted_sequence.shape[-1]
    if sorted_sequence.dim() == 1:
        seq = sorted_sequence.contiguous().view(1, L)
        x = input.contiguous().view(1, -1)
    else:
        seq = sorted_sequence.contiguous().view(-1, L)
        x = input.contiguous().view(seq.shape[0], -1)
    rows, Q = x.shape
    y = torch.empty(input.shape, dtype=torch.int64, device=input.device)
    if y.numel() == 0:
        return y
    n_steps = max(1, int(L).bit_length())
    BLOCK_SIZE = min(triton.next_power_of_2(max(Q, 1)), 1024)
    grid = (triton.cdiv(Q, BLOCK_SIZE), rows)
    _searchsorted_kernel[grid](seq, x, y, L, Q, RIGHT=bool(right), N_STEPS=n_steps, BLOCK_SIZE=BLOCK_SIZE)
    return y
