"""lp_pool2d in Triton: output tiles in the output's memory order, the window unrolled, fp32 power sums.

Each output is (sum of x^p over its window, times kH kW / count)^(1/p), as PyTorch defines it through
avg_pool2d(x^p) * kH kW: the factor is 1 except for ceil_mode windows cut off by the bottom/right edge. x^p
is x for p = 1, x * x for p = 2, a product of p factors x for an integer p up to 16 (exact signs, p - 1
roundings), and exp2(p log2 |x|) otherwise, 0 at x = 0, times (-1)^p for a negative x where p is an integer and
NaN where it is not, as torch.pow. The (1/p)-th power of a negative sum is NaN (log2 of it), as in PyTorch.
The window and strides are compile-time constants, so the tap loops unroll; taps past the edge (ceil_mode)
are masked to 0 and left out of `count`.

A program computes 1024 consecutive outputs in the output's memory order and recovers each one's
(n, c, oh, ow) with int32 divisions:
- NCHW (contiguous, transposed or strided views): a flat run of outputs; small planes share a program, and
  lanes along ow read inputs sW apart in one input row.
- channels-last (NHWC memory, stride 1 along C): a tile of 16 (n, oh, ow) positions by 64 channels; lanes read
  consecutive channels, coalesced and vectorised. The output is written channels-last too, as PyTorch does.
The input is addressed through its own strides (no copy) with int64 addresses.

Memory traffic: read the input once, write the output once (overlapping windows re-read from cache). On an
H100 (~3 TB/s) the 2x2 pool of 128 x 128 x 224 x 224 moves 4.1 GB in fp32 (~1.5 ms; eager PyTorch makes four
passes: pow, avg_pool2d, mul, pow) and the p = 3, 3x3 / 2 pool of 64 x 192 x 225 x 225 about 3.1 GB (~1.2 ms,
two multiplies per tap and one exp2/log2 pair per output, well under the FP32 budget); bf16 halves the traffic.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _lp_pool2d_kernel(
    x_ptr, out_ptr,
    C, H, W, OH, OW, n_rows, tiles_c, p, neg,
    sx_n, sx_c, sx_h, sx_w,
    KH: tl.constexpr, KW: tl.constexpr, SH: tl.constexpr, SW: tl.constexpr, P_KIND: tl.constexpr, P_INT: tl.constexpr,
    CHANNELS_LAST: tl.constexpr, BLOCK_A: tl.constexpr, BLOCK_B: tl.constexpr,
):
    # Each program computes a BLOCK_A x BLOCK_B tile of outputs in the output's memory order. Output indices
    # fit in int32 (checked by the wrapper); input addresses are int64.
    pid = tl.program_id(0)
    rows = (pid // tiles_c) * BLOCK_A + tl.arange(0, BLOCK_A)[:, None]
    lanes = (pid % tiles_c) * BLOCK_B + tl.arange(0, BLOCK_B)[None, :]
    if CHANNELS_LAST:
        # rows = (n, oh, ow) positions, lanes = channels (the unit stride).
        mask = (rows < n_rows) & (lanes < C)
        out_offs = rows * C + lanes
        ow = rows % OW
        oh = (rows // OW) % OH
        n = rows // (OW * OH)
        c = lanes
    else:
        # One row of BLOCK_B consecutive (n, c, oh, ow) outputs.
        flat = rows * BLOCK_B + lanes
        mask = flat < n_rows
        out_offs = flat
        ow = flat % OW
        oh = (flat // OW) % OH
        plane = flat // (OW * OH)
        n = plane // C
        c = plane % C
    base = x_ptr + n.to(tl.int64) * sx_n + c.to(tl.int64) * sx_c

    acc = tl.zeros((BLOCK_A, BLOCK_B), dtype=tl.float32)
    for kh in tl.static_range(KH):
        ih = oh * SH + kh
        row_ok = mask & (ih < H)  # rows past the bottom edge exist only in ceil_mode
        row_ptr = base + ih.to(tl.int64) * sx_h
        for kw in tl.static_range(KW):
            iw = ow * SW + kw
            x = tl.load(row_ptr + iw.to(tl.int64) * sx_w, mask=row_ok & (iw < W), other=0.0).to(tl.float32)
            if P_KIND == 1:
                acc += x
            elif P_KIND == 2:
                acc += x * x
            elif P_KIND == 3:
                v = x
                for _ in tl.static_range(P_INT - 1):
                    v = v * x
                acc += v
            else:
                # |x|^p, times neg = (-1)^p (integer p) or NaN (any other p) where x < 0, as torch.pow.
                mag = tl.where(x == 0.0, 0.0, tl.exp2(p * tl.log2(tl.abs(x))))
                acc += tl.where(x < 0.0, neg * mag, mag)
    # PyTorch's avg_pool2d(x^p) * kH kW: a window cut off by the edge is scaled by kH kW / count.
    count = (tl.minimum(oh * SH + KH, H) - oh * SH) * (tl.minimum(ow * SW + KW, W) - ow * SW)
    s = acc * ((KH * KW) / tl.maximum(count, 1).to(tl.float32))
    if P_KIND == 1:
        y = s
    elif P_KIND == 2:
        y = tl.sqrt(s)
    else:
        y = tl.where(s == 0.0, 0.0, tl.exp2(tl.log2(s) / p))  # NaN for s < 0, as PyTorch's pow(s, 1/p)
    tl.store(out_ptr + out_offs, y.to(out_ptr.dtype.element_ty), mask=mask)


def _pair(value):
    return (value, value) if isinstance(value, int) else (int(value[0]), int(value[1]))


def _out_size(size, k, s, ceil_mode):
    # PyTorch's pooling_output_shape with no padding: the last ceil_mode window must start inside the input.
    out = (size - k + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size:
        out -= 1
    return out


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    kh, kw = _pair(kernel_size)
    sh, sw = _pair(kernel_size if stride is None else stride)
    p = float(norm_type)
    integer = p.is_integer()
    kind = 1 if p == 1.0 else 2 if p == 2.0 else 3 if integer and 3 <= p <= 16 else 0
    neg = (-1.0 if int(p) % 2 else 1.0) if integer else float("nan")  # the factor x^p / |x|^p for x < 0
    x = input if input.dim() == 4 else input.unsqueeze(0)  # (C, H, W) -> (1, C, H, W), a view
    N, C, H, W = x.shape
    OH, OW = _out_size(H, kh, sh, ceil_mode), _out_size(W, kw, sw, ceil_mode)
    assert N * C * OH * OW < 2**31, "output indices are int32"

    channels_last = input.dim() == 4 and C > 1 and x.stride(1) == 1
    if channels_last:
        out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device, memory_format=torch.channels_last)
        n_rows = N * OH * OW
        BLOCK_B = min(64, triton.next_power_of_2(C))  # channels: the contiguous axis
        BLOCK_A = min(triton.next_power_of_2(n_rows), max(1, 1024 // BLOCK_B))  # output positions
        tiles_c = triton.cdiv(C, BLOCK_B)
        grid = (triton.cdiv(n_rows, BLOCK_A) * tiles_c,)
    else:
        out = torch.empty((N, C, OH, OW), dtype=x.dtype, device=x.device)
        n_rows = out.numel()  # the flat output length: a tile is one row of 1024 consecutive outputs
        BLOCK_A, BLOCK_B, tiles_c = 1, 1024, 1
        grid = (triton.cdiv(n_rows, BLOCK_B),)
    _lp_pool2d_kernel[grid](
        x, out, C, H, W, OH, OW, n_rows, tiles_c, p, neg,
        x.stride(0), x.stride(1), x.stride(2), x.stride(3),
        KH=kh, KW=kw, SH=sh, SW=sw, P_KIND=kind, P_INT=int(p) if kind == 3 else 0,
        CHANNELS_LAST=channels_last, BLOCK_A=BLOCK_A, BLOCK_B=BLOCK_B, num_warps=4,
    )
    return out if input.dim() == 4 else out.squeeze(0)
