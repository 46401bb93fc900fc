"""An honest conv1d as a third party writes it: direct convolution, one program per (n, out channel, length block).

The program walks the group's input channels in blocks of BLOCK_C and, for each, the K taps (unrolled): it loads a
BLOCK_C x BLOCK_L tile of the input (zero outside the padded row) and BLOCK_C weights, and accumulates their
products per channel lane in fp32; the lanes are summed once at the end. The channel block (at most 8192 lanes in
the tile with the length block) lets one step cover a whole group of a few dozen channels instead of one channel.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _conv1d_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, L, C_out, OL, Cg, Og, stride, pad, dil,
                   sxn, sxc, sxl, K: tl.constexpr, HAS_BIAS: tl.constexpr, BLOCK_L: tl.constexpr,
                   BLOCK_C: tl.constexpr):
    n = tl.program_id(0).to(tl.int64)
    o = tl.program_id(1)
    ox = tl.program_id(2) * BLOCK_L + tl.arange(0, BLOCK_L)
    out_mask = ox < OL
    start = ox * stride - pad
    g = o // Og
    rc = tl.arange(0, BLOCK_C)
    x_n = x_ptr + n * sxn + (g * Cg).to(tl.int64) * sxc
    w_o = w_ptr + o.to(tl.int64) * Cg * K
    acc = tl.zeros([BLOCK_C, BLOCK_L], tl.float32)
    for c0 in range(0, Cg, BLOCK_C):
        c = c0 + rc
        c_ok = c < Cg
        x_c = x_n + c[:, None] * sxc
        w_c = w_o + c * K
        mask_c = c_ok[:, None] & out_mask[None, :]
        for s in tl.static_range(K):
            pos = start + s * dil
            ok = (pos >= 0) & (pos < L)
            xv = tl.load(x_c + (pos * sxl)[None, :], mask=mask_c & ok[None, :], other=0.0)
            w = tl.load(w_c + s, mask=c_ok, other=0.0).to(tl.float32)
            acc += w[:, None] * xv.to(tl.float32)
    y = tl.sum(acc, axis=0)
    if HAS_BIAS:
        y += tl.load(b_ptr + o).to(tl.float32)
    tl.store(y_ptr + (n * C_out + o) * OL + ox, y.to(y_ptr.dtype.element_ty), mask=out_mask)


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
    w = weight.contiguous()
    y = torch.empty((N, C_out, OL), dtype=input.dtype, device=input.device)
    if y.numel() > 0:
        BLOCK_L = min(triton.next_power_of_2(max(OL, 1)), 256)
        BLOCK_C = min(triton.next_power_of_2(Cg), 8192 // BLOCK_L)
        grid = (N, C_out, triton.cdiv(OL, BLOCK_L))
        b = bias if bias is not None else w
        _conv1d_kernel[grid](x, w, b, y, C_in, L, C_out, OL, Cg, C_out // groups, stride, pad, dilation,
                             x.stride(0), x.stride(1), x.stride(2), K=K, HAS_BIAS=bias is not None,
                             BLOCK_L=BLOCK_L, BLOCK_C=BLOCK_C)
    return y[0] if unbatched else y
