"""Gates the wrong half: sigmoid(a) * b instead of a * sigmoid(b).

Same shape, same kernel structure, plausible when the chunk order is misremembered (the value half comes first
in PyTorch). The two halves carry different values, so almost every element is wrong.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _glu_kernel(x_ptr, y_ptr, half, BLOCK: tl.constexpr):
    row = tl.program_id(1).to(tl.int64)
    cols = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < half
    a = tl.load(x_ptr + row * 2 * half + cols, mask=mask).to(tl.float32)
    b = tl.load(x_ptr + row * 2 * half + half + cols, mask=mask).to(tl.float32)
    y = b / (1.0 + tl.exp(-a))
    tl.store(y_ptr + row * half + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def glu(input, dim=-1):
    x = input.contiguous()
    d = dim % x.dim()
    out_shape = list(x.shape)
    out_shape[d] //= 2
    out = torch.empty(out_shape, dtype=x.dtype, device=x.device)
    half = out_shape[d] * math.prod(x.shape[d + 1 :])
    _glu_kernel[(triton.cdiv(half, 1024), math.prod(x.shape[:d]))](x, out, half, BLOCK=1024)
    return out
