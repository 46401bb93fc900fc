"""Applies the kernel flipped: weight[d, j] multiplies x[t - j] (a textbook convolution, not a cross-correlation).

The taps read the right, causal positions x[t - width + 1 .. t], but pair them with the weights in reverse
order: weight[d, width - 1] should multiply the current token x[t]. PyTorch's conv1d (and causal_conv1d_fn) is a
cross-correlation, so the output is wrong for any kernel that is not a palindrome.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"


@triton.autotune(
    configs=[
        # The CPU interpreter runs only the first config; a large tile means fewer (slow) interpreted programs.
        triton.Config({"BLOCK_D": 32, "BLOCK_L": 128}, num_warps=4),
        triton.Config({"BLOCK_D": 16, "BLOCK_L": 256}, num_warps=4),
        triton.Config({"BLOCK_D": 8, "BLOCK_L": 512}, num_warps=4),
        triton.Config({"BLOCK_D": 64, "BLOCK_L": 64}, num_warps=4),
        triton.Config({"BLOCK_D": 128, "BLOCK_L": 32}, num_warps=4),
        triton.Config({"BLOCK_D": 256, "BLOCK_L": 16}, num_warps=4),
    ],
    key=["dim", "seqlen", "stride_xd", "stride_xl"],
)
@triton.jit
def _causal_conv1d_kernel(
    x_ptr, w_ptr, b_ptr, out_ptr,
    dim, seqlen,
    stride_xb, stride_xd, stride_xl,
    stride_wd, stride_ww,
    stride_ob, stride_od, stride_ol,
    WIDTH: tl.constexpr, HAS_BIAS: tl.constexpr, SILU: tl.constexpr,
    BLOCK_D: tl.constexpr, BLOCK_L: tl.constexpr,
):
    pid_l = tl.program_id(0)
    pid_d = tl.program_id(1)
    b = tl.program_id(2).to(tl.int64)  # 64-bit batch offsets: the bench tensors hold up to 671M elements

    offs_d = pid_d * BLOCK_D + tl.arange(0, BLOCK_D)
    offs_l = pid_l * BLOCK_L + tl.arange(0, BLOCK_L)
    d_ok = offs_d < dim
    l_ok = offs_l < seqlen
    x_rows = x_ptr + b * stride_xb + offs_d[:, None] * stride_xd  # (BLOCK_D, 1) channel rows of this batch

    acc = tl.zeros((BLOCK_D, BLOCK_L), dtype=tl.float32)
    for j in tl.static_range(WIDTH):
        # Tap j reads position t - (WIDTH - 1 - j); positions before 0 are the causal zero padding.
        src = offs_l - (WIDTH - 1 - j)
        xv = tl.load(x_rows + src[None, :] * stride_xl, mask=d_ok[:, None] & ((src >= 0) & l_ok)[None, :],
                     other=0.0)
        wj = tl.load(w_ptr + offs_d * stride_wd + (WIDTH - 1 - j) * stride_ww, mask=d_ok, other=0.0)
        acc += wj.to(tl.float32)[:, None] * xv.to(tl.float32)

    if HAS_BIAS:
        acc += tl.load(b_ptr + offs_d, mask=d_ok, other=0.0).to(tl.float32)[:, None]
    if SILU:
        acc = acc / (1.0 + tl.exp(-acc))  # v * sigmoid(v); exp overflow to inf gives -0.0, the right limit

    out_ptrs = out_ptr + b * stride_ob + offs_d[:, None] * stride_od + offs_l[None, :] * stride_ol
    tl.store(out_ptrs, acc.to(out_ptr.dtype.element_ty), mask=d_ok[:, None] & l_ok[None, :])


def causal_conv1d(x, weight, bias=None, activation=None):
    if activation not in (None, "silu", "swish"):
        raise ValueError(f"activation must be None, 'silu' or 'swish', not {activation!r}")
    batch, dim, seqlen = x.shape
    width = weight.shape[1]
    out = torch.empty_like(x)  # x's strides when x is dense (e.g. channels-last), contiguous otherwise
    if out.numel() == 0:
        return out
    grid = lambda meta: (triton.cdiv(seqlen, meta["BLOCK_L"]), triton.cdiv(dim, meta["BLOCK_D"]), batch)
    _causal_conv1d_kernel[grid](
        x, weight, bias.contiguous() if bias is not None else weight, out,
        dim, seqlen,
        x.stride(0), x.stride(1), x.stride(2),
        weight.stride(0), weight.stride(1),
        out.stride(0), out.stride(1), out.stride(2),
        WIDTH=width, HAS_BIAS=bias is not None, SILU=activation is not None,
    )
    return out
