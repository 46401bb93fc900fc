"""ELU written as in PyTorch's documentation, max(0, x) + min(0, alpha * (exp(x) - 1)), in fp32.

For alpha > 0 this is the same function as F.elu. F.elu accepts any alpha and computes
x if x > 0 else alpha * (exp(x) - 1); with a negative alpha the negative branch is positive, and the
min(0, .) of the documented formula clips it to 0 (every negative input gives 0 instead of alpha * (exp(x) - 1)).
It passes every workload but `check_neg_alpha` (alpha = -0.5), where the error reaches alpha's 0.5 on the inputs
far below 0.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _elu_kernel(x_ptr, y_ptr, n, alpha, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    neg = alpha * (tl.exp(tl.minimum(x, 0.0)) - 1.0)
    y = tl.maximum(x, 0.0) + tl.minimum(neg, 0.0)
    tl.store(y_ptr + offs, y.to(y_ptr.dtype.element_ty), mask=mask)


def elu(input, alpha=1.0):
    x = input.contiguous()
    y = torch.empty_like(x)
    n = x.numel()
    if n > 0:
        BLOCK_SIZE = 1024
        _elu_kernel[(triton.cdiv(n, BLOCK_SIZE),)](x, y, n, float(alpha), BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
