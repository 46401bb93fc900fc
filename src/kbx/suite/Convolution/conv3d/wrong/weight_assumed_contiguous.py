"""honest/direct_outer_product.py with the weight addressed as a contiguous array (strides (CG kD kH kW, kD kH kW, kH
kW, kW, 1)), never made contiguous.

Right for a freshly allocated weight, which every workload but one has; `check_triples` passes a channels-last
weight (a model converted with `.to(memory_format=torch.channels_last_3d)` holds its weights so), so the kernel
reads taps of other channels and positions and fails there.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _direct_conv3d(x_ptr, w_ptr, b_ptr, y_ptr, M, OD, OH, OW, D, H, W, CG, OG, KD, KH, KW,
                   SD, SH, SW, PD, PH, PW, DD, DH, DW,
                   sxn, sxc, sxd, sxh, sxw, swo, swc, swd, swh, sww,
                   HAS_BIAS: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    g = tl.program_id(2)
    C_OUT = OG * tl.num_programs(2)
    rm = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    m_ok = rm < M
    ox = rm % OW
    oy = (rm // OW) % OH
    oz = (rm // (OW * OH)) % OD
    nn = (rm // (OW * OH * OD)).to(tl.int64)
    rn = tl.program_id(1) * BLOCK_N + tl.arange(0, BLOCK_N)
    n_ok = rn < OG
    o = (g * OG + rn).to(tl.int64)

    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for c in range(0, CG):
        x_c = x_ptr + nn * sxn + (g * CG + c).to(tl.int64) * sxc
        w_c = w_ptr + o * swo + c * swc
        for q in range(0, KD):
            iz = oz * SD - PD + q * DD
            z_ok = m_ok & (iz >= 0) & (iz < D)
            for r in range(0, KH):
                iy = oy * SH - PH + r * DH
                zy_ok = z_ok & (iy >= 0) & (iy < H)
                for s in range(0, KW):
                    ix = ox * SW - PW + s * DW
                    ok = zy_ok & (ix >= 0) & (ix < W)
                    xv = tl.load(x_c + iz.to(tl.int64) * sxd + iy.to(tl.int64) * sxh + ix.to(tl.int64) * sxw,
                                 mask=ok, other=0.0).to(tl.float32)
                    wv = tl.load(w_c + q * swd + r * swh + s * sww, mask=n_ok, other=0.0).to(tl.float32)
                    acc += xv[:, None] * wv[None, :]

    if HAS_BIAS:
        acc += tl.load(b_ptr + o, mask=n_ok, other=0.0).to(tl.float32)[None, :]
    vol = OD * OH * OW
    y_ptrs = y_ptr + (nn * C_OUT * vol + (oz * OH + oy) * OW + ox)[:, None] + o[None, :] * vol
    tl.store(y_ptrs, acc.to(y_ptr.dtype.element_ty), mask=m_ok[:, None] & n_ok[None, :])


def _three(v):
    return (v, v, v) if isinstance(v, int) else tuple(int(e) for e in v)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    x = input if input.dim() == 5 else input.unsqueeze(0)
    N, C_in, D, H, W = x.shape
    C_out, CG, KD, KH, KW = weight.shape
    strides = _three(stride)
    dil = _three(dilation)
    ks = (KD, KH, KW)
    if padding == "valid":
        lo = (0, 0, 0)
        hi = (0, 0, 0)
    elif padding == "same":
        total = [dil[i] * (ks[i] - 1) for i in range(3)]
        lo = tuple(t // 2 for t in total)
        hi = tuple(t - t // 2 for t in total)
    else:
        lo = hi = _three(padding)
    ins = (D, H, W)
    OD, OH, OW = ((ins[i] + lo[i] + hi[i] - dil[i] * (ks[i] - 1) - 1) // strides[i] + 1 for i in range(3))
    OG = C_out // groups
    y = torch.empty((N, C_out, OD, OH, OW), dtype=x.dtype, device=x.device)
    M = N * OD * OH * OW
    if M > 0 and C_out > 0:
        BLOCK_M, BLOCK_N = 64, 32
        grid = (triton.cdiv(M, BLOCK_M), triton.cdiv(OG, BLOCK_N), groups)
        _direct_conv3d[grid](x, weight, bias if bias is not None else weight, y, M, OD, OH, OW, D, H, W, CG, OG,
                             KD, KH, KW, *strides, *lo, *dil, *x.stride(),
                             CG * KD * KH * KW, KD * KH * KW, KH * KW, KW, 1,
                             HAS_BIAS=bias is not None, BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N)
    return y if input.dim() == 5 else y[0]
