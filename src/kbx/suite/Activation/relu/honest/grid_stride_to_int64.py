"""An honest relu with a grid-stride loop: a fixed number of programs walks the flat tensor in the input dtype.

The wrapper makes the input contiguous and launches a fixed number of programs (a few per SM on a GPU, capped by
the number of blocks); each loops over blocks `pid, pid + n_programs, ...` with int64 offsets and keeps x where
x > 0 and 0 elsewhere, in the input dtype itself (a select, so nothing rounds). The solution launches one program
per block instead. The loop variable is widened with `block.to(tl.int64)`, a method the CPU interpreter lacked
for a Python int until kbx's shim (2026-11-28).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _relu_loop(x_ptr, y_ptr, n, n_blocks, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    step = tl.num_programs(0)
    lanes = tl.arange(0, BLOCK)
    for block in range(pid, n_blocks, step):
        offs = block.to(tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask, other=0.0)
        y = tl.where(x > 0, x, tl.zeros_like(x))
        tl.store(y_ptr + offs, y, mask=mask)


def relu(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    BLOCK = 2048
    n_blocks = triton.cdiv(n, BLOCK)
    programs = min(n_blocks, 132 * 4)
    _relu_loop[(programs,)](x, out, n, n_blocks, BLOCK=BLOCK, num_warps=4)
    return out
