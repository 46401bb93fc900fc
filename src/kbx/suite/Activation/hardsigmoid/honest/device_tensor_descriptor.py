"""An honest hardsigmoid with tensor descriptors made in the kernel (`tl.make_tensor_descriptor`, Triton's
device-side TMA descriptors; their scratch space comes from the allocator registered with `triton.set_allocator`,
as Triton's tutorials do): the contiguous input and output as 1-D descriptors, BLOCK = 256 (the largest TMA box),
out-of-bounds lanes read as zero and stores clipped; clamp(x / 6 + 1/2, 0, 1) in fp32, one rounding.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


def _alloc(size, alignment, stream):
    return torch.empty(size, dtype=torch.int8, device=_DEVICE[0])


_DEVICE = ["cpu"]


@triton.jit
def _hardsigmoid_desc(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    xd = tl.make_tensor_descriptor(x_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    yd = tl.make_tensor_descriptor(y_ptr, shape=[n], strides=[1], block_shape=[BLOCK])
    off = tl.program_id(0) * BLOCK
    x = xd.load([off]).to(tl.float32)
    y = tl.minimum(tl.maximum(x / 6.0 + 0.5, 0.0), 1.0)
    yd.store([off], y.to(y_ptr.dtype.element_ty))


def hardsigmoid(input):
    x = input.contiguous().view(-1)
    y = torch.empty_like(x)
    n = x.numel()
    if n:
        _DEVICE[0] = x.device
        triton.set_allocator(_alloc)
        BLOCK = 256
        _hardsigmoid_desc[(triton.cdiv(n, BLOCK),)](x, y, n, BLOCK=BLOCK)
    return y.view(input.shape)
