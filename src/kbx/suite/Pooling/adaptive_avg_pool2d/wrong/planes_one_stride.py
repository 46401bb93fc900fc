"""Reads the input through its own strides, but steps the flattened (N, C) planes by the channel stride alone.

Plausible: a kernel that takes stride(-2) and stride(-1) reads transposed and strided inputs in place, and
treating the N * C planes as one dim stepped by stride(-3) is right whenever the batch stride is C times the
channel stride: contiguous, transposed, strided and 3-D inputs (channels-last is copied to NCHW first), so every
such workload passes. It misses the first C channels of a 2C-channel tensor (as after x.chunk(2, dim=1)), whose
samples are 2C planes apart: from the second sample on it averages the other channels.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.jit
def _adaptive_avg_kernel(x_ptr, y_ptr, H, W, OH, OW, s_plane, s_h, s_w, BLOCK_W: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    plane = pid // (OH * OW)
    rem = pid % (OH * OW)
    oh = rem // OW
    ow = rem % OW
    hs = (oh * H) // OH
    he = ((oh + 1) * H + OH - 1) // OH
    ws = (ow * W) // OW
    we = ((ow + 1) * W + OW - 1) // OW
    x_plane = x_ptr + plane * s_plane  # planes (n, c) flattened: assumes stride(0) == C * stride(1)
    acc = tl.zeros([BLOCK_W], tl.float32)
    for h in range(hs, he):
        for w0 in range(ws, we, BLOCK_W):
            cols = w0 + tl.arange(0, BLOCK_W)
            acc += tl.load(x_plane + h * s_h + cols * s_w, mask=cols < we, other=0.0).to(tl.float32)
    count = ((he - hs) * (we - ws)).to(tl.float32)
    out = tl.sum(acc, axis=0) / count
    tl.store(y_ptr + pid, out.to(y_ptr.dtype.element_ty))


def adaptive_avg_pool2d(input, output_size):
    H, W = input.shape[-2], input.shape[-1]
    if isinstance(output_size, int):
        OH, OW = output_size, output_size
    else:
        OH, OW = output_size
        OH = H if OH is None else OH
        OW = W if OW is None else OW
    x = input
    if x.dim() == 4 and x.stride(1) < x.stride(-2):
        x = x.contiguous()  # channels-last: back to NCHW, one plane after another
    planes = x.numel() // (H * W)
    y = torch.empty(input.shape[:-2] + (OH, OW), dtype=input.dtype, device=input.device)
    n_out = planes * OH * OW
    if n_out > 0:
        max_win_w = -(-W // OW) + 1
        BLOCK_W = min(triton.next_power_of_2(max_win_w), 128)
        _adaptive_avg_kernel[(n_out,)](x, y, H, W, OH, OW, x.stride(-3), x.stride(-2), x.stride(-1),
                                       BLOCK_W=BLOCK_W)
    return y
