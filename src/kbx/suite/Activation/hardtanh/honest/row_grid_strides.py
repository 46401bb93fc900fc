"""An honest hardtanh on a 2-D (row, column-block) grid that reads the input through its strides.

The input is seen as up to three dimensions (d0, d1, d2): program (r, c) takes row r of the d0 * d1 rows, splits it
into its two coordinates once, and handles a block of d2 columns, reading each element at its strided address (no
`.contiguous()` copy) and writing a fresh contiguous output. The clamp is `min(max(x, min_val), max_val)` in fp32
with `tl.maximum`/`tl.minimum`, where the solution uses two selects on a flat walk in memory order.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _hardtanh_rows(x_ptr, y_ptr, d1, d2, s0, s1, s2, lo, hi, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < d2
    base = (row // d1) * s0 + (row % d1) * s1
    x = tl.load(x_ptr + base + cols.to(tl.int64) * s2, mask=mask, other=0.0).to(tl.float32)
    y = tl.minimum(tl.maximum(x, lo), hi)
    tl.store(y_ptr + row * d2 + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def hardtanh(input, min_val=-1.0, max_val=1.0):
    x = input if input.dim() <= 3 else input.reshape(-1)
    out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
    if x.numel() == 0:
        return out.view(input.shape)
    shape = [1] * (3 - x.dim()) + list(x.shape)
    strides = [0] * (3 - x.dim()) + list(x.stride())
    BLOCK = 1024
    grid = (shape[0] * shape[1], triton.cdiv(shape[2], BLOCK))
    _hardtanh_rows[grid](x, out, shape[1], shape[2], strides[0], strides[1], strides[2],
                         float(min_val), float(max_val), BLOCK=BLOCK, num_warps=4)
    return out.view(input.shape)
