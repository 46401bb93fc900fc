"""Uses the align_corners=True mapping when align_corners is False and vice versa.

align_corners=False puts -1 and 1 at the outer edges of the corner pixels (ix = ((x + 1) * W - 1) / 2), True at
their centres (ix = (x + 1) / 2 * (W - 1)); the flag's meaning is easy to invert. The two mappings agree only
at x = 0 and differ by up to half a pixel towards the edges, so nearly every output changes.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _grid_sample_kernel(
    x_ptr, g_ptr, out_ptr,
    C, H, W, Wo, P,
    sxn, sxc, sxh, sxw,
    sgn, sgh, sgw, sgk,
    ALIGN_CORNERS: tl.constexpr, BORDER: tl.constexpr,
    BLOCK_C: tl.constexpr, BLOCK_P: tl.constexpr,
):
    n = tl.program_id(1).to(tl.int64)
    pix = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)
    pmask = pix < P
    ho = pix // Wo
    wo = pix % Wo

    # Grid point of every output pixel: (x, y) = grid[n, ho, wo, 0:2], in fp32.
    g_off = n * sgn + ho.to(tl.int64) * sgh + wo.to(tl.int64) * sgw
    gx = tl.load(g_ptr + g_off, mask=pmask, other=0.0).to(tl.float32)
    gy = tl.load(g_ptr + g_off + sgk, mask=pmask, other=0.0).to(tl.float32)

    # Normalised [-1, 1] -> pixel coordinates.
    if not ALIGN_CORNERS:
        ix = (gx + 1.0) / 2.0 * (W - 1)
        iy = (gy + 1.0) / 2.0 * (H - 1)
    else:
        ix = ((gx + 1.0) * W - 1.0) / 2.0
        iy = ((gy + 1.0) * H - 1.0) / 2.0
    if BORDER:
        # Border padding clamps the coordinate itself, so outside points repeat the edge pixels.
        ix = tl.minimum(tl.maximum(ix, 0.0), W - 1.0)
        iy = tl.minimum(tl.maximum(iy, 0.0), H - 1.0)

    x0f = tl.floor(ix)
    y0f = tl.floor(iy)
    fx = ix - x0f
    fy = iy - y0f
    x0 = x0f.to(tl.int32)
    y0 = y0f.to(tl.int32)
    x1 = x0 + 1
    y1 = y0 + 1
    # A corner outside the input contributes nothing (zeros padding; with border padding only the weight-0
    # corner at ix = W - 1 can fall outside).
    vx0 = (x0 >= 0) & (x0 < W)
    vx1 = (x1 >= 0) & (x1 < W)
    vy0 = (y0 >= 0) & (y0 < H)
    vy1 = (y1 >= 0) & (y1 < H)
    w00 = (1.0 - fx) * (1.0 - fy)
    w01 = fx * (1.0 - fy)
    w10 = (1.0 - fx) * fy
    w11 = fx * fy
    m00 = pmask & vy0 & vx0
    m01 = pmask & vy0 & vx1
    m10 = pmask & vy1 & vx0
    m11 = pmask & vy1 & vx1
    o00 = y0.to(tl.int64) * sxh + x0.to(tl.int64) * sxw
    o01 = y0.to(tl.int64) * sxh + x1.to(tl.int64) * sxw
    o10 = y1.to(tl.int64) * sxh + x0.to(tl.int64) * sxw
    o11 = y1.to(tl.int64) * sxh + x1.to(tl.int64) * sxw

    x_img = x_ptr + n * sxn
    out_img = out_ptr + n * C * P
    for c0 in range(0, C, BLOCK_C):
        ch = c0 + tl.arange(0, BLOCK_C)
        cmask = (ch < C)[:, None]
        base = x_img + ch.to(tl.int64)[:, None] * sxc
        v00 = tl.load(base + o00[None, :], mask=cmask & m00[None, :], other=0.0).to(tl.float32)
        v01 = tl.load(base + o01[None, :], mask=cmask & m01[None, :], other=0.0).to(tl.float32)
        v10 = tl.load(base + o10[None, :], mask=cmask & m10[None, :], other=0.0).to(tl.float32)
        v11 = tl.load(base + o11[None, :], mask=cmask & m11[None, :], other=0.0).to(tl.float32)
        acc = v00 * w00[None, :] + v01 * w01[None, :] + v10 * w10[None, :] + v11 * w11[None, :]
        out_off = ch.to(tl.int64)[:, None] * P + pix[None, :]
        tl.store(out_img + out_off, acc.to(out_ptr.dtype.element_ty), mask=cmask & pmask[None, :])


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    assert mode == "bilinear", "only mode='bilinear' is implemented"
    assert padding_mode in ("zeros", "border"), "only zeros and border padding are implemented"
    N, C, H, W = input.shape
    _, Ho, Wo, _ = grid.shape
    out = torch.empty((N, C, Ho, Wo), dtype=input.dtype, device=input.device)
    P = Ho * Wo
    if out.numel() == 0:
        return out
    BLOCK_P = 256
    BLOCK_C = 8
    grid_dims = (triton.cdiv(P, BLOCK_P), N)
    _grid_sample_kernel[grid_dims](
        input, grid, out, C, H, W, Wo, P, *input.stride(), *grid.stride(),
        ALIGN_CORNERS=bool(align_corners), BORDER=padding_mode == "border",
        BLOCK_C=BLOCK_C, BLOCK_P=BLOCK_P, num_warps=4,
    )
    return out
