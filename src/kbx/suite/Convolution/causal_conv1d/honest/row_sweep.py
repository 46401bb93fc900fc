"""An honest causal_conv1d with one program per (batch, channel) row sweeping the sequence: exp2-based SiLU.

Each program owns one channel of one batch element and walks its sequence in chunks of BLOCK_L positions. The
channel's taps are read as scalars in a runtime loop over the width (not unrolled), each tap's shifted window is
loaded with the causal mask `t - shift >= 0`, and the products are summed in fp32. The bias is added, SiLU is
computed as v / (1 + 2^(-v log2 e)), and the chunk is stored once into a fresh contiguous output. Unlike a
2-D (channel x position) tile, every program touches a single row, so strides only enter through the row base.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _row_kernel(x_ptr, w_ptr, b_ptr, y_ptr, dim, seqlen, width, sxb, sxd, sxl, swd, sww,
                HAS_BIAS: tl.constexpr, SILU: tl.constexpr, BLOCK_L: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    bb = row // dim
    d = row % dim
    x_row = x_ptr + bb * sxb + d * sxd
    y_row = y_ptr + row * seqlen
    bias = 0.0
    if HAS_BIAS:
        bias = tl.load(b_ptr + d).to(tl.float32)
    for start in range(0, seqlen, BLOCK_L):
        t = start + tl.arange(0, BLOCK_L)
        inside = t < seqlen
        acc = tl.zeros((BLOCK_L,), dtype=tl.float32)
        for j in range(0, width):
            shift = width - 1 - j
            src = t - shift
            w = tl.load(w_ptr + d * swd + j * sww).to(tl.float32)
            xv = tl.load(x_row + src.to(tl.int64) * sxl, mask=inside & (src >= 0), other=0.0).to(tl.float32)
            acc += w * xv
        acc += bias
        if SILU:
            acc = acc / (1.0 + tl.exp2(-acc * 1.4426950408889634))
        tl.store(y_row + t, acc.to(y_ptr.dtype.element_ty), mask=inside)


def causal_conv1d(x, weight, bias=None, activation=None):
    if activation not in (None, "silu", "swish"):
        raise ValueError(f"activation must be None, 'silu' or 'swish', not {activation!r}")
    batch, dim, seqlen = x.shape
    width = weight.shape[1]
    y = torch.empty((batch, dim, seqlen), dtype=x.dtype, device=x.device)
    if y.numel() == 0:
        return y
    block_l = min(1024, triton.next_power_of_2(seqlen))
    _row_kernel[(batch * dim,)](x, weight, bias if bias is not None else weight, y, dim, seqlen, width,
                                x.stride(0), x.stride(1), x.stride(2), weight.stride(0), weight.stride(1),
                                HAS_BIAS=bias is not None, SILU=activation is not None, BLOCK_L=block_l)
    return y
