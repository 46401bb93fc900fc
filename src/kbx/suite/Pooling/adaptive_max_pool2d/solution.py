"""adaptive_max_pool2d in Triton: window bounds computed per output, window rows walked with runtime loops.

Output oh averages input rows [floor(oh H / OH), ceil((oh + 1) H / OH)), and likewise for columns, so windows
differ in size and may overlap by one; the bounds are computed in the kernel with integer arithmetic, and the
loops over window rows (and, channels-last, columns) are runtime loops, so global pooling of a large plane does
not unroll. The input is addressed through its own strides (no copy), with int64 addresses (the benches hold
~2^30 elements). Maxima start at -inf (lanes outside a window load -inf) and are taken in the input dtype:
they are exact, one of the inputs.

- NCHW (contiguous, transposed or strided views): one program per (n, c, block of BLOCK_O outputs) of one
  plane. Its tile is [BLOCK_O outputs, BLOCK_KW window columns]: each lane row covers one output's window
  columns, so a lane row's load is a contiguous run of an input row and neighbouring windows are neighbouring
  runs. The program walks window rows 0 .. max_kh - 1 (masked per output by its own window height), keeping a
  running maximum per lane, and reduces over the window columns at the end. Windows wider than BLOCK_KW
  (<= 128) are walked in chunks. ~1024 lanes per program: all 49 outputs of a 64x64 -> 7x7 plane at once.
- channels-last (NHWC memory, stride 1 along C): one program per (n, oh, ow, BLOCK_C channels). The window is
  the same for all its lanes, so both window loops have scalar bounds and every tap is one contiguous,
  vectorised load of BLOCK_C channels. The output is written channels-last too, as PyTorch returns it.

Memory traffic: each input element is read once (a one-row window overlap re-reads from L2), the output is
small. On an H100 (~3 TB/s) the 256 x 1024 x 64 x 64 -> 7 x 7 fp32 bench (4.3 GB) should take about 1.5 ms, the
global pool of a channels-last 2048 x 2048 x 14 x 14 tensor (3.3 GB fp32) about 1.2 ms; bf16 halves both.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _pool_nchw_kernel(x_ptr, out_ptr, C, H, W, OH, OW, tiles, max_kh, sx_n, sx_c, sx_h, sx_w,
                      BLOCK_O: tl.constexpr, BLOCK_KW: tl.constexpr, MAX_KW: tl.constexpr):
    pid = tl.program_id(0)  # = (n * C + c) * tiles + tile
    plane = pid // tiles
    n = plane // C
    c = plane % C
    o = (pid % tiles) * BLOCK_O + tl.arange(0, BLOCK_O)[:, None]  # flat (oh, ow) outputs of the plane
    o_ok = o < OH * OW
    oh = o // OW
    ow = o % OW
    hs = (oh * H) // OH
    he = ((oh + 1) * H + OH - 1) // OH
    ws = (ow * W) // OW
    we = ((ow + 1) * W + OW - 1) // OW
    kw = tl.arange(0, BLOCK_KW)[None, :]
    base = x_ptr + n.to(tl.int64) * sx_n + c.to(tl.int64) * sx_c

    # The running max is kept in fp32 (exact for every input dtype: a max only selects) so its type stays the same
    # through the loop whatever type the compiler gives the max of two half-precision values.
    acc = tl.full((BLOCK_O, BLOCK_KW), float("-inf"), tl.float32)
    for kh in range(0, max_kh):
        ih = hs + kh
        row = base + ih.to(tl.int64) * sx_h
        row_ok = o_ok & (ih < he)
        for k0 in tl.static_range(0, MAX_KW, BLOCK_KW):
            iw = ws + k0 + kw
            v = tl.load(row + iw.to(tl.int64) * sx_w, mask=row_ok & (iw < we), other=float("-inf"))
            acc = tl.maximum(acc, v.to(tl.float32))
    res = tl.max(acc, axis=1)[:, None].to(out_ptr.dtype.element_ty)  # (BLOCK_O, 1)
    # The output is a fresh contiguous (N, C, OH, OW) tensor.
    tl.store(out_ptr + plane.to(tl.int64) * OH * OW + o, res, mask=o_ok)


@triton.jit
def _pool_nhwc_kernel(x_ptr, out_ptr, C, H, W, OH, OW, tiles_c, sx_n, sx_c, sx_h, sx_w,
                      BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)  # = ((n * OH + oh) * OW + ow) * tiles_c + tile_c
    tile_c = pid % tiles_c
    pos = pid // tiles_c
    ow = pos % OW
    oh = (pos // OW) % OH
    n = pos // (OW * OH)
    hs = (oh * H) // OH
    he = ((oh + 1) * H + OH - 1) // OH
    ws = (ow * W) // OW
    we = ((ow + 1) * W + OW - 1) // OW

    c = tile_c * BLOCK_C + tl.arange(0, BLOCK_C)
    cmask = c < C
    base = x_ptr + n.to(tl.int64) * sx_n + c.to(tl.int64) * sx_c
    acc = tl.full((BLOCK_C,), float("-inf"), tl.float32)  # fp32, as in the kernel above
    row = base + hs.to(tl.int64) * sx_h + ws.to(tl.int64) * sx_w  # the window's top-left tap
    for _ih in range(hs, he):
        tap = row
        for _iw in range(ws, we):
            acc = tl.maximum(acc, tl.load(tap, mask=cmask, other=float("-inf")).to(tl.float32))
            tap += sx_w
        row += sx_h
    # The output is channels-last: (n, oh, ow) rows of C contiguous channels.
    tl.store(out_ptr + pos.to(tl.int64) * C + c, acc.to(out_ptr.dtype.element_ty), mask=cmask)


def _pair(size, H, W):
    oh, ow = (size, size) if isinstance(size, int) or size is None else size
    return (H if oh is None else int(oh)), (W if ow is None else int(ow))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    if return_indices:
        raise NotImplementedError("values only: return_indices=False")
    x = input if input.dim() == 4 else input.unsqueeze(0)  # (C, H, W) -> (1, C, H, W), a view
    N, C, H, W = x.shape
    OH, OW = _pair(output_size, H, W)
    strides = (x.stride(0), x.stride(1), x.stride(2), x.stride(3))

    if input.dim() == 4 and C > 1 and x.stride(1) == 1:
        out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device, memory_format=torch.channels_last)
        BLOCK_C = min(256, triton.next_power_of_2(C))
        tiles_c = triton.cdiv(C, BLOCK_C)
        _pool_nhwc_kernel[(N * OH * OW * tiles_c,)](x, out, C, H, W, OH, OW, tiles_c, *strides,
                                                     BLOCK_C=BLOCK_C, num_warps=2)
        return out

    out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
    max_kh = -(-H // OH) + 1  # the tallest window: ceil(H / OH), plus one when windows overlap
    max_kw = -(-W // OW) + 1  # the widest window
    BLOCK_KW = min(triton.next_power_of_2(max_kw), 128)
    BLOCK_O = min(triton.next_power_of_2(OH * OW), max(1, 1024 // BLOCK_KW))
    tiles = triton.cdiv(OH * OW, BLOCK_O)
    _pool_nchw_kernel[(N * C * tiles,)](x, out, C, H, W, OH, OW, tiles, max_kh, *strides, BLOCK_O=BLOCK_O,
                                        BLOCK_KW=BLOCK_KW, MAX_KW=max_kw, num_warps=4)
    return out if input.dim() == 4 else out.squeeze(0)
