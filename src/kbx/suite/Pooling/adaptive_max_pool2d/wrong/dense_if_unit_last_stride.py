"""Copies the input only when its last dim is strided, then indexes it as dense planes H * W apart.

Plausible: "stride(-1) == 1 means the rows are contiguous" is the usual guard before a flat-indexing Triton
kernel, and it sends channels-last, transposed and strided inputs to a copy, so every such workload passes. It
misses an input whose planes are contiguous but not H * W apart from one channel to the next sample: the first
C channels of a 2C-channel tensor, as after x.chunk(2, dim=1): from the second sample on it pools the other
channels instead.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adaptive_max_kernel(x_ptr, y_ptr, H, W, OH, OW, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    plane = pid // (OH * OW)
    rem = pid % (OH * OW)
    oh = rem // OW
    ow = rem % OW
    hs = (oh * H) // OH
    he = ((oh + 1) * H + OH - 1) // OH
    ws = (ow * W) // OW
    we = ((ow + 1) * W + OW - 1) // OW
    x_plane = x_ptr + plane * H * W  # planes assumed H * W apart
    acc = tl.full([BLOCK_W], float("-inf"), tl.float32)
    for h in range(hs, he):
        for w0 in range(ws, we, BLOCK_W):
            cols = w0 + tl.arange(0, BLOCK_W)
            v = tl.load(x_plane + h * W + cols, mask=cols < we, other=float("-inf")).to(tl.float32)
            acc = tl.maximum(acc, v)
    out = tl.max(acc, axis=0)
    tl.store(y_ptr + pid, out.to(y_ptr.dtype.element_ty))


def adaptive_max_pool2d(input, output_size, return_indices=False):
    H, W = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int):
        OH, OW = output_size, output_size
    else:
        OH, OW = output_size
        OH = H if OH is None else OH
        OW = W if OW is None else OW
    # Copy only what the flat indexing cannot read: a strided last dim (transposed, strided, channels-last).
    x = input if input.stride(-1) == 1 else input.contiguous()
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    n_out = planes * OH * OW
    if n_out > 0:
        max_win_w = -(-W // OW) + 1
        BLOCK_W = min(triton.next_power_of_2(max_win_w), 128)
        _adaptive_max_kernel[(n_out,)](x, y, H, W, OH, OW, BLOCK_W=BLOCK_W)
    return y
