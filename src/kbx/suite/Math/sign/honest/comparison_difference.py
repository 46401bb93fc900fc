"""An honest sign from its definition, (0 < x) - (x < 0), in a grid-stride loop over the contiguous input.

The two comparisons are converted to fp32 and subtracted, which gives 1, -1 or 0 (also 0 for NaN and for either
zero, as PyTorch's definition says), then stored in the input dtype. A fixed number of programs loops over the
blocks, where the solution launches one program per block.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sign_loop(x_ptr, y_ptr, n, n_blocks, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        offs = tl.cast(block, tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        s = (x > 0).to(tl.float32) - (x < 0).to(tl.float32)
        tl.store(y_ptr + offs, s.to(y_ptr.dtype.element_ty), mask=mask)


def sign(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 1024
    n_blocks = triton.cdiv(n, BLOCK)
    _sign_loop[(min(n_blocks, 1024),)](x, out, n, n_blocks, BLOCK=BLOCK, num_warps=4)
    return out
