"""Forms the log-sum-exp lse = m + log(s) in fp32 and then writes x - lse.

Algebraically the same as (x - m) - log(s), but with |m| ~ 1000 the sum m + log(s) is rounded to ulp(1000)
~ 6e-5 in fp32, and that error lands on every output (including those near 0, where the fp32 tolerance is
~1e-5). Subtracting m first is exact for x near m.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _kernel(x_ptr, y_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64) * n_cols
    cols = tl.arange(0, BLOCK)
    mask = cols < n_cols
    x = tl.load(x_ptr + row + cols, mask=mask, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    lse = m + tl.log(tl.sum(tl.exp(x - m), axis=0))
    tl.store(y_ptr + row + cols, (x - lse).to(y_ptr.dtype.element_ty), mask=mask)


def log_softmax(input, dim):
    x = input.movedim(dim, -1).contiguous()
    out = torch.empty_like(x)
    n = x.shape[-1]
    _kernel[(x.numel() // n,)](x, out, n, BLOCK=triton.next_power_of_2(n))
    return out.movedim(-1, dim)
