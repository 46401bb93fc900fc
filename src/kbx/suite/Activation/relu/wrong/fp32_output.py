"""Returns the output in float32 whatever the input dtype.

The kernel upcasts to fp32 for the compare and the author allocated the output to match the arithmetic rather
than the input, so float16 inputs come back as float32 tensors (torch.relu keeps the input dtype). The values
are right; the dtype is not.
"""

import torch
import triton
import triton.language as tl

EXPECT = "WRONG_DTYPE"


@triton.jit
def _relu_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    tl.store(y_ptr + offsets, tl.where(x < 0, 0.0, x), mask=mask)


def relu(input):
    x = input.contiguous()
    out = torch.empty(x.shape, dtype=torch.float32, device=x.device)
    n = x.numel()
    _relu_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
