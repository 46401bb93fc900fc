"""Guards against log(0) by clamping the input to 1e-30 first, as if -inf were an error.

The clamp looks harmless, but fp32 inputs reach down to 1.2e-38 and every one below 1e-30 comes out as log(1e-30) ~
-69 instead of values down to -87; log(0) must be -inf and a negative input must give NaN, and both come out -69 as
well.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _log_kernel(x_ptr, y_ptr, n, BLOCK: tl.constexpr):
    offsets = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask).to(tl.float32)
    y = tl.log(tl.maximum(x, 1e-30))
    tl.store(y_ptr + offsets, y.to(y_ptr.dtype.element_ty), mask=mask)


def log(input):
    x = input.contiguous()
    out = torch.empty_like(x)
    n = x.numel()
    _log_kernel[(triton.cdiv(n, 1024),)](x, out, n, BLOCK=1024)
    return out
