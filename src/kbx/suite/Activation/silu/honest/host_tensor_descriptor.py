"""An honest silu with TMA-style tensor descriptors built on the host (`triton.tools.tensor_descriptor.
TensorDescriptor`, as Triton's own tutorials do on Hopper): the contiguous input and output are each described as
one 1-D tensor (a 1-D descriptor has no stride alignment rule, only the 16-byte aligned base torch's allocator
gives), each program loads a BLOCK of 256 (the largest TMA box) with `desc.load([offset])` (out-of-bounds lanes
read zero) and stores with `desc.store` (clipped at the end); x * sigmoid(x) in fp32, one rounding.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor


@triton.jit
def _silu_desc(x_desc, y_desc, BLOCK: tl.constexpr):
    off = tl.program_id(0) * BLOCK
    x = x_desc.load([off]).to(tl.float32)
    y = x / (1.0 + tl.exp(-x))
    y_desc.store([off], y.to(y_desc.dtype))


def silu(input):
    x = input.contiguous().view(-1)
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        BLOCK = 256  # a TMA box holds at most 256 elements per dimension
        x_desc = TensorDescriptor.from_tensor(x, [BLOCK])
        y_desc = TensorDescriptor.from_tensor(y, [BLOCK])
        _silu_desc[(triton.cdiv(n, BLOCK),)](x_desc, y_desc, BLOCK=BLOCK)
    return y.view(input.shape)
