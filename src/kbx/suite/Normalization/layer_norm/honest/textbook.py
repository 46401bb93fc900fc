"""An honest layer_norm as a third party writes it: two passes: mean, then variance.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _layer_norm_kernel(x_ptr, y_ptr, w_ptr, b_ptr, N, eps, HAS_W: tl.constexpr, HAS_B: tl.constexpr,
                       BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    y_row = y_ptr + row * N
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        acc += tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
    mean = tl.sum(acc, axis=0) / N
    acc2 = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        d = tl.where(mask, x - mean, 0.0)
        acc2 += d * d
    var = tl.sum(acc2, axis=0) / N
    rstd = 1.0 / tl.sqrt(var + eps)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = (x - mean) * rstd
        if HAS_W:
            y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        if HAS_B:
            y = y + tl.load(b_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    N = math.prod(normalized_shape)
    x = input.contiguous().view(-1, N)
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y.view(input.shape)
    w = weight.contiguous().view(-1) if weight is not None else x
    b = bias.contiguous().view(-1) if bias is not None else x
    BLOCK_SIZE = min(triton.next_power_of_2(N), 4096)
    _layer_norm_kernel[(x.shape[0],)](x, y, w, b, N, float(eps), HAS_W=weight is not None,
                                      HAS_B=bias is not None, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
