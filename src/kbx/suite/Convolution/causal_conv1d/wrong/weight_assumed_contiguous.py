"""honest/host_left_pad.py with the weight addressed as a contiguous array (w_ptr + d * WIDTH + j), never made
contiguous.

Right for a freshly allocated weight, which every workload but one has; `check_width3_plain` passes a transposed
weight (its last two dims stored column-major), so the kernel reads taps of other channels and positions and fails
there.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _causal_conv(xp_ptr, w_ptr, b_ptr, out_ptr, D, T, T_pad, HAS_BIAS: tl.constexpr, SILU: tl.constexpr,
                 WIDTH: tl.constexpr, BLOCK: tl.constexpr):
    bd = tl.program_id(0)
    d = bd % D
    t = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    t_ok = t < T
    row = xp_ptr + bd.to(tl.int64) * T_pad
    acc = tl.zeros([BLOCK], tl.float32)
    for j in tl.static_range(WIDTH):
        w = tl.load(w_ptr + d * WIDTH + j).to(tl.float32)
        acc += w * tl.load(row + t + j, mask=t_ok, other=0.0).to(tl.float32)
    if HAS_BIAS:
        acc += tl.load(b_ptr + d).to(tl.float32)
    if SILU:
        acc = acc * tl.sigmoid(acc)
    tl.store(out_ptr + bd.to(tl.int64) * T + t, acc.to(out_ptr.dtype.element_ty), mask=t_ok)


def causal_conv1d(x, weight, bias=None, activation=None):
    if activation not in (None, "silu", "swish"):
        raise ValueError(f"activation must be None, 'silu' or 'swish', not {activation!r}")
    B, D, T = x.shape
    width = weight.shape[1]
    xp = F.pad(x, (width - 1, 0))  # causal zeros on the left; contiguous (B, D, T + width - 1)
    w = weight
    out = torch.empty((B, D, T), dtype=x.dtype, device=x.device)
    if out.numel():
        BLOCK = 128
        grid = (B * D, triton.cdiv(T, BLOCK))
        _causal_conv[grid](xp, w, bias if bias is not None else w, out, D, T, T + width - 1,
                           HAS_BIAS=bias is not None, SILU=activation is not None, WIDTH=width, BLOCK=BLOCK)
    return out
