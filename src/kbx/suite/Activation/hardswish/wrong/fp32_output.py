"""Returns the output in float32 whatever the input dtype.

The kernel computes in fp32 and the author allocated the output to match the arithmetic rather than the input,
so float16 inputs come back as float32 tensors (hardswish keeps the input dtype). The values are right; the
dtype is not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_DTYPE"


@triton.jit
def _hardswish_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(y_ptr + offsets, x * tl.minimum(tl.maximum(x + 3.0, 0.0), 6.0) / 6.0, mask=mask)


def hardswish(input):
    x = input.contiguous()
    out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    n = x.numel()
    _hardswish_kernel[(triton.cdiv(n, 4096),)](x, out, n, BLOCK=4096, num_warps=8)
    return out
