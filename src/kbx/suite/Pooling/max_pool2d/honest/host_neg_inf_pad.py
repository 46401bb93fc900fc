"""An honest max_pool2d that pads on the host: `F.pad(..., value=-inf)` adds the padding (and, in ceil mode, the
extra right/bottom margin the last window reaches) to a contiguous copy, so every window lies inside the padded
planes and the kernel needs no bounds tests on the taps; a flat grid over output elements, the window unrolled
with `tl.static_range`, `tl.maximum` in the input dtype. Output sizes by PyTorch's ceil-mode rule.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import torch.nn.functional as F
import triton
import triton.language as tl


@triton.jit
def _max_pool_padded(xp_ptr, y_ptr, total, HP, WP, OH, OW, SH, SW, DH, DW,
                     KH: tl.constexpr, KW: tl.constexpr, BLOCK: tl.constexpr):
    idx = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = idx < total
    ow = idx % OW
    oh = (idx // OW) % OH
    plane = idx // (OW * OH)
    base = plane * HP * WP
    acc = tl.full([BLOCK], float("-inf"), xp_ptr.dtype.element_ty)
    for kh in tl.static_range(KH):
        for kw in tl.static_range(KW):
            v = tl.load(xp_ptr + base + (oh * SH + kh * DH) * WP + ow * SW + kw * DW, mask=ok,
                        other=float("-inf"))
            acc = tl.maximum(acc, v)
    tl.store(y_ptr + idx, acc, mask=ok)


def _pair(v):
    return (v, v) if isinstance(v, int) else tuple(v)


def _out_size(size, k, s, p, d, ceil_mode):
    out = (size + 2 * p - d * (k - 1) - 1 + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(stride) if stride is not None and stride != [] else (kh, kw)
    ph, pw = _pair(padding)
    dh, dw = _pair(dilation)
    H, W = input.shape[-2:]
    OH = _out_size(H, kh, sh, ph, dh, ceil_mode)
    OW = _out_size(W, kw, sw, pw, dw, ceil_mode)
    # room for the last window: it may reach past the right/bottom padding in ceil mode
    extra_h = max(0, (OH - 1) * sh + dh * (kh - 1) + 1 - (H + 2 * ph))
    extra_w = max(0, (OW - 1) * sw + dw * (kw - 1) + 1 - (W + 2 * pw))
    xp = F.pad(input, (pw, pw + extra_w, ph, ph + extra_h), value=float("-inf")).contiguous()
    HP, WP = xp.shape[-2:]
    y = torch.empty((*input.shape[:-2], OH, OW), dtype=input.dtype, device=input.device)
    total = y.numel()
    if total:
        BLOCK = 256
        _max_pool_padded[(triton.cdiv(total, BLOCK),)](xp, y, total, HP, WP, OH, OW, sh, sw, dh, dw,
                                                      KH=kh, KW=kw, BLOCK=BLOCK)
    return y
