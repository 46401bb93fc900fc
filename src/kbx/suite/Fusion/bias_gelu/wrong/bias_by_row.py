"""Indexes the bias by row (flat index // N) instead of by column (flat index % N).

A broadcasting slip: the bias belongs to the output features, the last dim, and each row must see all N of
its values. Here each row sees a single value (the row index wrapped modulo N to stay in range), so the
outputs differ from the reference almost everywhere.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _bias_gelu_kernel(x_ptr, b_ptr, y_ptr, n, n_cols, BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    b = tl.load(b_ptr + (offs // n_cols) % n_cols, mask=mask, other=0.0).to(tl.float32)
    z = x + b
    y = 0.5 * z * (1.0 + tl.math.erf(z * 0.7071067811865476))
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def bias_gelu(input, bias):
    x = input.contiguous()
    out = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    n = out.numel()
    _bias_gelu_kernel[(triton.cdiv(n, 1024),)](x, bias, out, n, bias.numel(), BLOCK=1024)
    return out
