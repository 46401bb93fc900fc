"""An honest upsample_bilinear2d as a persistent kernel: as many programs as the GPU has SMs (read once per device
from `torch.cuda.get_device_properties(device).multi_processor_count` and cached with `functools.cache`, as
Triton's persistent-matmul tutorial sizes its grid), each walking (row block x column block) output tiles with a
grid-stride `tl.range` loop (tiles of up to 2048 outputs, at most 128 wide, shrunk to the output's size);
source rows and columns from `libdevice.floor`, four corners gathered through the input's strides, fp32 inside,
one rounding.

The SM-count query made it RUNTIME_ERROR on the CPU alone (torch without CUDA raises) until kbx's interpreter shim
(2026-11-28).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import functools

import torch
import triton
import triton.language as tl
from triton.language.extra import libdevice


@functools.cache
def _num_sms(device):
    return torch.cuda.get_device_properties(device).multi_processor_count


@triton.jit
def _coords(o, in_size, scale, ALIGN: tl.constexpr):
    if ALIGN:
        src = o.to(tl.float32) * scale
    else:
        src = tl.maximum((o.to(tl.float32) + 0.5) * scale - 0.5, 0.0)
    f = libdevice.floor(src)
    i0 = f.to(tl.int32)
    return i0, tl.minimum(i0 + 1, in_size - 1), src - f


@triton.jit
def _upsample_persistent(x_ptr, y_ptr, C, H, W, OH, OW, scale_h, scale_w, sxn, sxc, sxh, sxw, n_tiles, tiles_w,
                         tiles_per_plane, ALIGN: tl.constexpr, BH: tl.constexpr, BW: tl.constexpr):
    for tile in tl.range(tl.program_id(0), n_tiles, tl.num_programs(0)):
        plane = tile // tiles_per_plane
        t = tile % tiles_per_plane
        oh = (t // tiles_w) * BH + tl.arange(0, BH)
        ow = (t % tiles_w) * BW + tl.arange(0, BW)
        h0, h1, lh = _coords(oh, H, scale_h, ALIGN)
        w0, w1, lw = _coords(ow, W, scale_w, ALIGN)
        m = (oh < OH)[:, None] & (ow < OW)[None, :]
        base = x_ptr + (plane // C).to(tl.int64) * sxn + (plane % C).to(tl.int64) * sxc
        p00 = tl.load(base + (h0 * sxh)[:, None] + (w0 * sxw)[None, :], mask=m, other=0.0).to(tl.float32)
        p01 = tl.load(base + (h0 * sxh)[:, None] + (w1 * sxw)[None, :], mask=m, other=0.0).to(tl.float32)
        p10 = tl.load(base + (h1 * sxh)[:, None] + (w0 * sxw)[None, :], mask=m, other=0.0).to(tl.float32)
        p11 = tl.load(base + (h1 * sxh)[:, None] + (w1 * sxw)[None, :], mask=m, other=0.0).to(tl.float32)
        top = p00 + (p01 - p00) * lw[None, :]
        bot = p10 + (p11 - p10) * lw[None, :]
        out = top + (bot - top) * lh[:, None]
        dst = y_ptr + plane.to(tl.int64) * OH * OW + oh[:, None] * OW + ow[None, :]
        tl.store(dst, out.to(y_ptr.dtype.element_ty), mask=m)


def upsample_bilinear2d(input, size, align_corners=False):
    N, C, H, W = input.shape
    OH, OW = size
    if align_corners:
        sh = (H - 1) / (OH - 1) if OH > 1 else 0.0
        sw = (W - 1) / (OW - 1) if OW > 1 else 0.0
    else:
        sh, sw = H / OH, W / OW
    y = torch.empty((N, C, OH, OW), dtype=input.dtype, device=input.device)
    BW = min(128, max(16, triton.next_power_of_2(OW)))
    BH = min(2048 // BW, triton.next_power_of_2(OH))
    tiles_w = triton.cdiv(OW, BW)
    tiles_per_plane = triton.cdiv(OH, BH) * tiles_w
    n_tiles = N * C * tiles_per_plane
    grid = (max(1, min(_num_sms(input.device), n_tiles)),)
    _upsample_persistent[grid](input, y, C, H, W, OH, OW, sh, sw, *input.stride(), n_tiles, tiles_w, tiles_per_plane,
                               ALIGN=align_corners, BH=BH, BW=BW)
    return y
