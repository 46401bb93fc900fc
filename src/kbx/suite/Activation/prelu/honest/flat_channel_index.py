"""An honest prelu on a flat contiguous walk that recovers each element's channel from its flat index.

The input is made contiguous (N, C, *rest); with `inner` = the product of `rest`, element i belongs to channel
(i // inner) % C, or to channel 0 when the weight is shared (C = 1 in the kernel). One program per block of 1024
elements, int64 offsets, `where(x > 0, x, w * x)` in fp32 and one rounding to the dtype. The solution tiles rows
by channel instead.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _prelu_flat(x_ptr, w_ptr, y_ptr, n, inner, n_weights, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    channel = (offs // inner) % n_weights
    w = tl.load(w_ptr + channel, mask=mask, other=0.0).to(tl.float32)
    y = tl.where(x > 0, x, w * x)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def prelu(input, weight):
    x = input.contiguous()
    w = weight.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    if n == 0:
        return out
    inner = 1
    for size in x.shape[2:]:
        inner *= size
    n_weights = w.numel()
    BLOCK = 1024
    _prelu_flat[(triton.cdiv(n, BLOCK),)](x, w, out, n, inner, n_weights, BLOCK=BLOCK)
    return out
