"""Applies the affine step only when `bias` is given: a weight passed without a bias is dropped.

The author treats (weight, bias) as one "affine" switch keyed on the bias, and fills in a weight of ones when a
bias comes alone (the case the bias-only workload asks for). F.instance_norm accepts a weight alone too (weight=w,
bias=None): the output must then be x_hat * w, and this kernel returns x_hat. It passes every workload with a
bias or without a weight; `check_weight_only` (a weight drawn as 1 + 0.5 randn, no bias) fails.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _plane_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C, S, S2, sn, sc, s1, s2, eps,
                  HAS_WEIGHT: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    n = plane // C
    c = plane % C
    base = x_ptr + n * sn + c * sc
    shift = tl.load(base).to(tl.float32)
    lanes = tl.arange(0, BLOCK)
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    acc2 = tl.zeros((BLOCK,), dtype=tl.float32)
    for start in range(0, S, BLOCK):
        s = (start + lanes).to(tl.int64)
        ok = s < S
        x = tl.load(base + (s // S2) * s1 + (s % S2) * s2, mask=ok, other=0.0).to(tl.float32)
        d = tl.where(ok, x - shift, 0.0)
        acc += d
        acc2 += d * d
    mean_d = tl.sum(acc, axis=0) / S
    var = tl.maximum(tl.sum(acc2, axis=0) / S - mean_d * mean_d, 0.0)
    scale = tl.rsqrt(var + eps)
    if HAS_WEIGHT:
        scale = scale * tl.load(w_ptr + c).to(tl.float32)
    bias = 0.0
    if HAS_BIAS:
        bias = tl.load(b_ptr + c).to(tl.float32)
    out = y_ptr + plane * S
    for start in range(0, S, BLOCK):
        s = (start + lanes).to(tl.int64)
        ok = s < S
        x = tl.load(base + (s // S2) * s1 + (s % S2) * s2, mask=ok, other=0.0).to(tl.float32)
        y = ((x - shift) - mean_d) * scale + bias
        tl.store(out + s, y.to(y_ptr.dtype.element_ty), mask=ok)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-05):
    if not use_input_stats or running_mean is not None or running_var is not None:
        raise NotImplementedError("statistics from the input only")
    x = input
    if x.dim() == 3:
        x = x.unsqueeze(2)
    elif x.dim() > 4:
        x = x.flatten(2, -2)
    N, C, S1, S2 = x.shape
    S = S1 * S2
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if y.numel() == 0:
        return y
    BLOCK = min(2048, triton.next_power_of_2(S))
    affine = bias is not None  # one switch for the affine pair, as nn.InstanceNorm2d's affine
    w = weight
    if affine and w is None:
        w = torch.ones(C, dtype=input.dtype, device=input.device)  # bias alone: scale by 1
    _plane_kernel[(N * C,)](x, w if affine else x, bias if affine else x, y,
                            C, S, S2, *x.stride(), eps, HAS_WEIGHT=affine, HAS_BIAS=affine, BLOCK=BLOCK)
    return y
