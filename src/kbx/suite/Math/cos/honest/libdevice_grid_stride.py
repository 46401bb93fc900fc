"""An honest cos that calls CUDA's libdevice `cos` in fp32, in a grid-stride loop over the contiguous input.

libdevice's cosf reduces the argument itself (accurately, for every finite float), so the kernel does no reduction
of its own: it widens the input to fp32, calls `libdevice.cos`, and rounds once to the dtype. A fixed number of
programs loops over the blocks. The solution reduces by 2 pi in three parts and calls `tl.cos` instead.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@triton.jit
def _cos_loop(x_ptr, y_ptr, n, n_blocks, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        offs = tl.cast(block, tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + offs, libdevice.cos(x).to(y_ptr.dtype.element_ty), mask=mask)


def cos(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 1024
    n_blocks = triton.cdiv(n, BLOCK)
    _cos_loop[(min(n_blocks, 2048),)](x, out, n, n_blocks, BLOCK=BLOCK, num_warps=4)
    return out
