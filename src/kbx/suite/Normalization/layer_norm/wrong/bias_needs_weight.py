"""Applies the affine step only when `weight` is given: a bias passed without a weight is dropped.

The author treats (weight, bias) as one "elementwise_affine" switch, as nn.LayerNorm does, and substitutes a
zero bias when only the weight is present. F.layer_norm accepts bias alone (weight=None, bias=b): the output must
then be x_hat + b, and this kernel returns x_hat. It passes every workload with a weight or without a bias;
`check_101_bias_only` (weight None, a bias drawn as randn scaled by 0.5) fails, off by the bias itself.
"""

import math

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


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
    affine = weight is not None  # one switch for the affine pair, as nn.LayerNorm's elementwise_affine
    b = bias.contiguous().view(-1) if bias is not None else x
    BLOCK_SIZE = min(triton.next_power_of_2(N), 4096)
    _layer_norm_kernel[(x.shape[0],)](x, y, w, b, N, float(eps), HAS_W=weight is not None,
                                      HAS_B=affine and bias is not None, BLOCK_SIZE=BLOCK_SIZE)
    return y.view(input.shape)
