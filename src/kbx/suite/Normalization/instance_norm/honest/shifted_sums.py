"""An honest instance_norm with shifted one-pass statistics: sums of (x - K) and (x - K)^2, K a plane sample.

One program per (sample, channel) plane. The plane's first element K serves as a shift: the first sweep
accumulates per-lane fp32 sums of d = x - K and d^2 (the textbook one-pass variance, made stable against the
planes' large means by the shift), then mean = K + sum(d) / S and var = sum(d^2) / S - (sum(d) / S)^2, clamped
at 0. The second sweep writes ((x - K) - mean_d) * rsqrt(var + eps) * weight + bias into a fresh contiguous
output. The spatial dims are read through the input's strides (as two dims, so channels-last, transposed and
strided inputs need no copy). The suite's kernel instead merges per-tile (mean, M2) pairs with Chan's formula.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


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
    _plane_kernel[(N * C,)](x, weight if weight is not None else x, bias if bias is not None else x, y,
                            C, S, S2, *x.stride(), eps, HAS_WEIGHT=weight is not None, HAS_BIAS=bias is not None,
                            BLOCK=BLOCK)
    return y
