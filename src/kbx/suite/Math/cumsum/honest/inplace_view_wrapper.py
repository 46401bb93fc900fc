"""An honest cumsum whose wrapper reshapes with in-place view methods: a 1-D input is given a leading row with
`unsqueeze`, the kernel scans rows (one program per row, `tl.cumsum` on each chunk plus an fp32 carry), and the
result's extra dim is removed in place with `squeeze_(0)` (metadata only, no data touched); other ranks move the
scanned dim last with `movedim(...).contiguous()`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _cumsum_row(x_ptr, y_ptr, length, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    carry = 0.0
    for start in range(0, length, BLOCK):
        cols = start + tl.arange(0, BLOCK)
        mask = cols < length
        x = tl.load(x_ptr + row * length + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + row * length + cols, (tl.cumsum(x, axis=0) + carry).to(y_ptr.dtype.element_ty),
                 mask=mask)
        carry += tl.sum(x, axis=0)


def cumsum(input, dim):
    one_d = input.dim() <= 1
    x = input.reshape(1, -1).contiguous() if one_d else input.movedim(dim, -1).contiguous()
    length = x.shape[-1]
    y = torch.empty_like(x)
    rows = x.numel() // max(length, 1)
    if x.numel():
        _cumsum_row[(rows,)](x, y, length, BLOCK=1024)
    if one_d:
        y.squeeze_(0)
        return y.view(input.shape)
    return y.movedim(-1, dim)
