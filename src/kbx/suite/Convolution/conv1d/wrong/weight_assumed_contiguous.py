"""honest/textbook.py with the weight addressed as a contiguous array (w_ptr + (o * Cg + c) * K + s), never made
contiguous.

Right for a freshly allocated weight, which every workload but one has; `check_stride_dilation` passes a transposed
weight (its last two dims stored column-major), so the kernel reads taps of other channels and positions and fails
there.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, L, C_out, OL, Cg, Og, stride, pad, dil,
                   sxn, sxc, sxl, K: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_L: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1).to(tl.int64)
    ox = tl.program_id(2).to(tl.int64) * BLOCK_L + tl.arange(0, BLOCK_L)
    out_mask = ox < OL
    g = o // Og
    acc = tl.zeros([BLOCK_L], tl.float32)
    for c in range(0, Cg):
        ci = g * Cg + c
        x_chan = x_ptr + n * sxn + ci * sxc
        for s in tl.static_range(K):
            w = tl.load(w_ptr + (o * Cg + c) * K + s).to(tl.float32)
            pos = ox * stride - pad + s * dil
            ok = out_mask & (pos >= 0) & (pos < L)
            xv = tl.load(x_chan + pos * sxl, mask=ok, other=0.0).to(tl.float32)
            acc += w * xv
    if HAS_BIAS:
        acc += tl.load(b_ptr + o).to(tl.float32)
    tl.store(y_ptr + (n * C_out + o) * OL + ox, acc.to(y_ptr.dtype.element_ty), mask=out_mask)


def _one(v):
    return v if isinstance(v, int) else v[0]


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.dim() == 2
    x = input.unsqueeze(0) if unbatched else input
    N, C_in, L = x.shape
    C_out, Cg, K = weight.shape
    stride, dilation = _one(stride), _one(dilation)
    if padding == "valid":
        pad = 0
    elif padding == "same":
        pad = dilation * (K - 1) // 2   # the odd element of the total padding goes to the end
    else:
        pad = _one(padding)
    if padding == "same":
        OL = L
    else:
        OL = (L + 2 * pad - dilation * (K - 1) - 1) // stride + 1
    w = weight
    y = torch.empty((N, C_out, OL), dtype=input.dtype, device=input.device)
    if y.numel() > 0:
        BLOCK_L = min(triton.next_power_of_2(max(OL, 1)), 256)
        grid = (N, C_out, triton.cdiv(OL, BLOCK_L))
        b = bias if bias is not None else w
        _conv1d_kernel[grid](x, w, b, y, C_in, L, C_out, OL, Cg, C_out // groups, stride, pad, dilation,
                             x.stride(0), x.stride(1), x.stride(2), K=K, HAS_BIAS=bias is not None,
                             BLOCK_L=BLOCK_L)
    return y[0] if unbatched else y
