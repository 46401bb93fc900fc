"""An honest sqrt with plain `tl.sqrt` in fp32 (not the correctly rounded `sqrt_rn`), in a grid-stride loop.

The input is made contiguous and widened to fp32; `tl.sqrt` (on a GPU the fast approximate square root) gives
+-0, +inf and NaN for negative inputs as IEEE does, and the result is rounded once to the dtype. A fixed number of
programs loops over the blocks. The solution uses `tl.sqrt_rn` with one program per block.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sqrt_loop(x_ptr, y_ptr, n, n_blocks, BLOCK: tl.constexpr):
    lanes = tl.arange(0, BLOCK)
    for block in range(tl.program_id(0), n_blocks, tl.num_programs(0)):
        offs = tl.cast(block, tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_ptr + offs, tl.sqrt(x).to(y_ptr.dtype.element_ty), mask=mask)


def sqrt(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 4096
    n_blocks = triton.cdiv(n, BLOCK)
    _sqrt_loop[(min(n_blocks, 528),)](x, out, n, n_blocks, BLOCK=BLOCK, num_warps=8)
    return out
