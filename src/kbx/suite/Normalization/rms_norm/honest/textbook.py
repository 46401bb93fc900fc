"""An honest rms_norm as a third party writes it: `x / sqrt(mean(x^2) + eps) * w`.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import math

import torch
import triton
import triton.language as tl


@triton.jit
def _rms_norm_kernel(x_ptr, y_ptr, w_ptr, N, eps, HAS_W: tl.constexpr, BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    x_row = x_ptr + row * N
    y_row = y_ptr + row * N
    acc = tl.zeros([BLOCK_SIZE], tl.float32)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        x = tl.load(x_row + cols, mask=cols < N, other=0.0).to(tl.float32)
        acc += x * x
    ms = tl.sum(acc, axis=0) / N
    rrms = 1.0 / tl.sqrt(ms + eps)
    for start in range(0, N, BLOCK_SIZE):
        cols = start + tl.arange(0, BLOCK_SIZE)
        mask = cols < N
        x = tl.load(x_row + cols, mask=mask, other=0.0).to(tl.float32)
        y = x * rrms
        if HAS_W:
            y = y * tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
        tl.store(y_row + cols, y.to(y_ptr.dtype.element_ty), mask=mask)


def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    if eps is None:
        eps = torch.finfo(torch.float32).eps
    N = math.prod(normalized_shape)
    x = input.contiguous().view(-1, N)
    y = torch.empty_like(x)
    if x.numel() == 0:
        return y.view(input.shape)
    w = weight.contiguous().view(-1) if weight is not None else x
    BLOCK_SIZE = min(triton.next_power_of_2(N), 4096)
    _rms_norm_kernel[(x.shape[0],)](x, y, w, N, float(eps), HAS_W=weight is not None, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
