"""Each output's window is loaded as one (rows, columns) tile of at most 8192 elements, with no loop over the rest.

The tile is next_power_of_2 of the widest window's columns (up to 128) by next_power_of_2 of its rows, the rows
capped so the tile holds at most TILE_MAX = 8192 elements, a budget of registers per program. Every window of the
other workloads fits; the global window of `check_global_large` (97 x 101) does not: rows 64 to 96 are never read,
and its unique maximum lies past element 8192 of the plane, in row 81 or later.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

TILE_MAX = 8192  # BUG: window rows past TILE_MAX // BLOCK_W are never read


@triton.jit
def _pool_kernel(x_ptr, out_ptr, H, W, OH, OW, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0)  # = (plane * OH + oh) * OW + ow
    ow = pid % OW
    oh = (pid // OW) % OH
    plane = (pid // (OW * OH)).to(tl.int64)
    hs = (oh * H) // OH
    he = ((oh + 1) * H + OH - 1) // OH
    ws = (ow * W) // OW
    we = ((ow + 1) * W + OW - 1) // OW
    ih = hs + tl.arange(0, BLOCK_H)[:, None]
    iw = ws + tl.arange(0, BLOCK_W)[None, :]
    v = tl.load(x_ptr + plane * H * W + ih * W + iw, mask=(ih < he) & (iw < we), other=float("-inf"))
    tl.store(out_ptr + pid, tl.max(tl.max(v.to(tl.float32), axis=1), axis=0).to(out_ptr.dtype.element_ty))


def _pair(size, H, W):
    oh, ow = (size, size) if isinstance(size, int) or size is None else size
    return (H if oh is None else int(oh)), (W if ow is None else int(ow))


def _widest(n, out):
    return max(((i + 1) * n + out - 1) // out - (i * n) // out for i in range(out))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    H, W = input.shape[-2:]
    OH, OW = _pair(output_size, H, W)
    x = input.contiguous()
    out = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    BLOCK_W = min(triton.next_power_of_2(_widest(W, OW)), 128)
    BLOCK_H = min(triton.next_power_of_2(_widest(H, OH)), TILE_MAX // BLOCK_W)
    _pool_kernel[(out.numel(),)](x, out, H, W, OH, OW, BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return out
