"""An honest adaptive_avg_pool2d as a third party writes it: one program per output, an fp32 loop over its window.

Program (plane, oh, ow) computes its window bounds and loops over the window in BLOCK_H x BLOCK_W tiles (one tile
when the window fits: BLOCK_H and BLOCK_W cover the largest window up to 4096 lanes, with BLOCK_W <= 128),
summing per lane in fp32, then reduces the tile and divides by the window size.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _adaptive_avg_kernel(x_ptr, y_ptr, H, W, OH, OW, H_END, W_END, BLOCK_H: tl.constexpr, BLOCK_W: tl.constexpr):
    plane = tl.program_id(0).to(tl.int64)
    oh = tl.program_id(1)
    ow = tl.program_id(2)
    # window [floor(oh H / OH), ceil((oh + 1) H / OH)); H_END = H + OH - 1 turns the ceiling into a floor
    oh_h = oh * H
    hs = oh_h // OH
    he = (oh_h + H_END) // OH
    ow_w = ow * W
    ws = ow_w // OW
    we = (ow_w + W_END) // OW
    x_plane = x_ptr + plane * (H * W)
    lane_h = tl.arange(0, BLOCK_H)[:, None]
    lane_w = tl.arange(0, BLOCK_W)[None, :]
    acc = tl.zeros([BLOCK_H, BLOCK_W], tl.float32)
    for h0 in range(hs, he, BLOCK_H):
        rows = h0 + lane_h
        rows_ok = rows < he
        for w0 in range(ws, we, BLOCK_W):
            cols = w0 + lane_w
            acc += tl.load(x_plane + rows * W + cols, mask=rows_ok & (cols < we), other=0.0).to(tl.float32)
    count = ((he - hs) * (we - ws)).to(tl.float32)
    out = tl.sum(tl.sum(acc, axis=1), axis=0) / count
    tl.store(y_ptr + (plane * OH + oh) * OW + ow, out.to(y_ptr.dtype.element_ty))


def adaptive_avg_pool2d(input, output_size):
    H, W = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int):
        OH, OW = output_size, output_size
    else:
        OH, OW = output_size
        OH = H if OH is None else OH
        OW = W if OW is None else OW
    x = input.contiguous()
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    n_out = planes * OH * OW
    if n_out > 0:
        max_win_w = -(-W // OW) + 1
        BLOCK_W = min(triton.next_power_of_2(max_win_w), 128)
        BLOCK_H = min(triton.next_power_of_2(-(-H // OH) + 1), 4096 // BLOCK_W)
        _adaptive_avg_kernel[(planes, OH, OW)](x, y, H, W, OH, OW, H + OH - 1, W + OW - 1,
                                                BLOCK_H=BLOCK_H, BLOCK_W=BLOCK_W)
    return y
