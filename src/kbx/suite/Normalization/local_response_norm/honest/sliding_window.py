"""An honest local_response_norm with a running window sum along the channels: add the entering, drop the leaving.

Each program owns BLOCK spatial positions of one sample and walks the channels in order, keeping the fp32 sum
of squares of the current window [c - size//2, c + (size-1)//2]: it primes the sum with the window of channel
0, and at each channel adds the square of the channel entering on the right and, after writing channel c,
subtracts the square of the one leaving on the left (channels outside [0, C) count as 0). The output is
x / exp(beta * log(k + alpha / size * sum)), rounded once, into a fresh contiguous tensor; the input is read
through its strides (spatial dims decoded as up to three dims). The suite's kernel instead re-sums the whole
window for every channel tile.

Expected to pass (`kbx.tasks.suite_check`): a false rejection of it is a defect of the contract or the harness.
"""

import torch
import triton
import triton.language as tl


@triton.jit
def _sq(x_ptr, base, c, C, sc, ok):
    v = tl.load(x_ptr + base + c * sc, mask=ok & (c >= 0) & (c < C), other=0.0).to(tl.float32)
    return v * v


@triton.jit
def _lrn_sliding(x_ptr, y_ptr, C, S, D2, D3, sn, sc, s1, s2, s3, size, alpha_over_n, beta, k,
                 BLOCK: tl.constexpr):
    n = tl.program_id(1).to(tl.int64)
    s = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    ok = s < S
    base = n * sn + (s // (D2 * D3)) * s1 + ((s // D3) % D2) * s2 + (s % D3) * s3
    before = size // 2
    after = (size - 1) // 2
    window = tl.zeros((BLOCK,), dtype=tl.float32)
    for j in range(0, after):
        window += _sq(x_ptr, base, j, C, sc, ok)
    out = y_ptr + n * C * S + s
    for c in range(0, C):
        window += _sq(x_ptr, base, c + after, C, sc, ok)
        x = tl.load(x_ptr + base + c * sc, mask=ok, other=0.0).to(tl.float32)
        div = k + alpha_over_n * window
        y = x / tl.exp(beta * tl.log(div))
        tl.store(out + c * S, y.to(y_ptr.dtype.element_ty), mask=ok)
        window -= _sq(x_ptr, base, c - before, C, sc, ok)


def local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0):
    x = input
    while x.dim() < 5:
        x = x.unsqueeze(-1)
    if x.dim() > 5:
        x = x.flatten(4)
    N, C, D1, D2, D3 = x.shape
    S = D1 * D2 * D3
    y = torch.empty(input.shape, dtype=input.dtype, device=input.device)
    if y.numel() == 0:
        return y
    BLOCK = min(1024, triton.next_power_of_2(S))
    _lrn_sliding[(triton.cdiv(S, BLOCK), N)](x, y, C, S, D2, D3, *x.stride(), size, alpha / size, beta, k,
                                             BLOCK=BLOCK)
    return y
