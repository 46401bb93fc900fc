"""Copies the input only when its last dim is strided, then addresses it with the strides of a dense NCHW tensor.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before dense indexing, and it sends
channels-last inputs to a copy, so every such workload passes. It misses an input whose planes are contiguous but
whose samples are not C_in * H * W apart: the first C_in channels of a tensor with twice as many, as after
x.chunk(2, dim=1) (the two halves of a split activation): from the second sample on it convolves the other half.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _conv2d_igemm_kernel(x_ptr, w_ptr, b_ptr, y_ptr, N, H, W, C_out, OH, OW, Cg, Og,
                         SH, SW, PH, PW, DH, DW, sxn, sxc, sxh, sxw,
                         KH: tl.constexpr, KW: tl.constexpr, HAS_BIAS: tl.constexpr, PRECISION: tl.constexpr,
                         BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0).to(tl.int64)
    pid_n = tl.program_id(1).to(tl.int64)
    g = tl.program_id(2).to(tl.int64)
    M = N * OH * OW
    K = Cg * KH * KW
    rm = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    ro = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    n = rm // (OH * OW)
    oh = (rm // OW) % OH
    ow = rm % OW
    o = g * Og + ro
    acc = tl.zeros([BLOCK_M, BLOCK_N], tl.float32)
    for k0 in range(0, K, BLOCK_K):
        rk = k0 + tl.arange(0, BLOCK_K)
        c = rk // (KH * KW)
        r = (rk // KW) % KH
        s = rk % KW
        ih = oh[:, None] * SH - PH + r[None, :] * DH
        iw = ow[:, None] * SW - PW + s[None, :] * DW
        a_mask = (rm[:, None] < M) & (rk[None, :] < K) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
        a = tl.load(x_ptr + n[:, None] * sxn + (g * Cg + c[None, :]) * sxc + ih * sxh + iw * sxw,
                    mask=a_mask, other=0.0)
        b_mask = (rk[:, None] < K) & (ro[None, :] < Og)
        b = tl.load(w_ptr + o[None, :] * K + rk[:, None], mask=b_mask, other=0.0)
        acc = tl.dot(a, b, acc, input_precision=PRECISION)
    if HAS_BIAS:
        acc += tl.load(b_ptr + o, mask=ro < Og, other=0.0).to(tl.float32)[None, :]
    y_off = ((n[:, None] * C_out + o[None, :]) * OH + oh[:, None]) * OW + ow[:, None]
    tl.store(y_ptr + y_off, acc.to(y_ptr.dtype.element_ty), mask=(rm[:, None] < M) & (ro[None, :] < Og))


def _pair(v):
    return (v, v) if isinstance(v, int) else (v[0], v[1])


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    unbatched = input.dim() == 3
    x = input.unsqueeze(0) if unbatched else input
    # Copy only what dense indexing cannot read: a strided last dim (channels-last, transposed).
    x = x if x.stride(-1) == 1 else x.contiguous()
    N, C_in, H, W = x.shape
    C_out, Cg, KH, KW = weight.shape
    sh, sw = _pair(stride)
    dh, dw = _pair(dilation)
    if padding == "valid":
        ph, pw = 0, 0
    elif padding == "same":
        ph, pw = dh * (KH - 1) // 2, dw * (KW - 1) // 2   # the odd pixel goes to the bottom/right
    else:
        ph, pw = _pair(padding)
    if padding == "same":
        OH, OW = H, W
    else:
        OH = (H + 2 * ph - dh * (KH - 1) - 1) // sh + 1
        OW = (W + 2 * pw - dw * (KW - 1) - 1) // sw + 1
    w = weight.contiguous()
    Og = C_out // groups
    y = torch.empty((N, C_out, OH, OW), dtype=input.dtype, device=input.device)
    if y.numel() > 0:
        BLOCK_M, BLOCK_N, BLOCK_K = 64, 32, 32
        grid = (triton.cdiv(N * OH * OW, BLOCK_M), triton.cdiv(Og, BLOCK_N), groups)
        precision = "ieee" if input.dtype == torch.float32 else "tf32"
        b = bias if bias is not None else w
        _conv2d_igemm_kernel[grid](x, w, b, y, N, H, W, C_out, OH, OW, Cg, Og, sh, sw, ph, pw, dh, dw,
                                   C_in * H * W, H * W, W, 1, KH=KH, KW=KW,
                                   HAS_BIAS=bias is not None, PRECISION=precision,
                                   BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N, BLOCK_K=BLOCK_K)
    return y[0] if unbatched else y
