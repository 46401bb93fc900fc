"""An honest quantize_per_tensor_int8 as a third party writes it: x / scale, rint by the 1.5*2^23 trick, + zp, clamp.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _rint(y):
    # round half to even for |y| < 2^22: adding 1.5 * 2^23 leaves no fraction bits, the FPU rounds to even
    return (y + 12582912.0) - 12582912.0


@triton.jit
def _quant_kernel(x_ptr, y_ptr, n, scale, zero_point, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    q = _rint(x / scale) + zero_point
    q = tl.minimum(tl.maximum(q, -128.0), 127.0)
    tl.store(y_ptr + offs, q.to(tl.int8), mask=mask)


def quantize_per_tensor_int8(input, scale, zero_point):
    x = input.contiguous()
    y = torch.empty(input.shape, dtype=torch.int8, device=input.device)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _quant_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, float(scale), float(zero_point), BLOCK_SIZE=BLOCK_SIZE)
    return y
