"""An honest causal_conv1d with a wrapper as Mamba's Triton ports write theirs: the launch inside
`with torch.cuda.device(x.device.index):` (so a tensor on a second GPU launches there), `@torch.no_grad()` on the
entry point, x read through its strides (channels-last and sliced inputs in place), a (channel block x time block)
tile per program with the width taps unrolled, fp32 sums, SiLU as v * sigmoid(v) with `tl.sigmoid`.

The device guard made it RUNTIME_ERROR on the CPU alone (torch without CUDA raises on `torch.cuda.device(None)`,
which it documents as a no-op) until kbx's interpreter shim (2026-11-28).

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _causal_conv1d_fwd(x_ptr, w_ptr, b_ptr, out_ptr, dim, seqlen,
                       stride_x_batch, stride_x_dim, stride_x_seq, stride_w_dim, stride_w_width,
                       stride_o_batch, stride_o_dim, stride_o_seq,
                       WIDTH: tl.constexpr, HAS_BIAS: tl.constexpr, SILU: tl.constexpr,
                       BLOCK_D: tl.constexpr, BLOCK_L: tl.constexpr):
    pid_b = tl.program_id(2)
    offs_d = tl.program_id(1) * BLOCK_D + tl.arange(0, BLOCK_D)
    offs_l = tl.program_id(0) * BLOCK_L + tl.arange(0, BLOCK_L)
    mask_d = offs_d < dim
    x_base = x_ptr + pid_b * stride_x_batch + offs_d[:, None] * stride_x_dim
    acc = tl.zeros((BLOCK_D, BLOCK_L), dtype=tl.float32)
    for k in tl.static_range(WIDTH):
        pos = offs_l - (WIDTH - 1 - k)
        m = mask_d[:, None] & ((pos >= 0) & (pos < seqlen))[None, :]
        x = tl.load(x_base + pos[None, :] * stride_x_seq, mask=m, other=0.0).to(tl.float32)
        w = tl.load(w_ptr + offs_d * stride_w_dim + k * stride_w_width, mask=mask_d, other=0.0).to(tl.float32)
        acc += x * w[:, None]
    if HAS_BIAS:
        acc += tl.load(b_ptr + offs_d, mask=mask_d, other=0.0).to(tl.float32)[:, None]
    if SILU:
        acc = acc * tl.sigmoid(acc)
    o = out_ptr + pid_b * stride_o_batch + offs_d[:, None] * stride_o_dim + offs_l[None, :] * stride_o_seq
    tl.store(o, acc.to(out_ptr.dtype.element_ty), mask=mask_d[:, None] & (offs_l < seqlen)[None, :])


@torch.no_grad()
def causal_conv1d(x, weight, bias=None, activation=None):
    if activation not in [None, "silu", "swish"]:
        raise NotImplementedError("activation must be None, silu, or swish")
    batch, dim, seqlen = x.shape
    width = weight.shape[1]
    out = torch.empty_like(x, memory_format=torch.contiguous_format)
    BLOCK_D, BLOCK_L = 32, 64
    grid = (triton.cdiv(seqlen, BLOCK_L), triton.cdiv(dim, BLOCK_D), batch)
    with torch.cuda.device(x.device.index):
        _causal_conv1d_fwd[grid](
            x, weight, bias, out, dim, seqlen,
            x.stride(0), x.stride(1), x.stride(2), weight.stride(0), weight.stride(1),
            out.stride(0), out.stride(1), out.stride(2),
            WIDTH=width, HAS_BIAS=bias is not None, SILU=activation in ["silu", "swish"],
            BLOCK_D=BLOCK_D, BLOCK_L=BLOCK_L,
        )
    return out
