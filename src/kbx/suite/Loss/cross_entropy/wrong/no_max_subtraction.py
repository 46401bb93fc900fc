"""Computes log(sum(exp(x))) directly instead of max + log(sum(exp(x - max))).

Fine for small logits, but exp overflows to inf once a logit passes ~88.7, and a sample whose logits are all
very negative gives log(0) = -inf. The inputs' per-sample offsets reach +-1000, so the loss is not finite.
"""

import torch
import triton
import triton.language as tl

EXPECT = "NONFINITE"


@triton.jit
def _ce_kernel(x_ptr, t_ptr, loss_ptr, n_classes, n_inner, BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    n = pid // n_inner
    d = pid % n_inner
    base = n.to(tl.int64) * n_classes * n_inner + d
    s = tl.zeros([BLOCK_C], tl.float32)
    for start in range(0, n_classes, BLOCK_C):
        c = start + tl.arange(0, BLOCK_C)
        x = tl.load(x_ptr + base + c * n_inner, mask=c < n_classes, other=float("-inf")).to(tl.float32)
        s += tl.exp(x)
    target = tl.load(t_ptr + pid)
    x_t = tl.load(x_ptr + base + target * n_inner).to(tl.float32)
    tl.store(loss_ptr + pid, tl.log(tl.sum(s, axis=0)) - x_t)


def cross_entropy(input, target):
    x = input.contiguous()
    n, n_classes = x.shape[0], x.shape[1]
    n_inner = x.numel() // (n * n_classes)
    losses = torch.empty(n * n_inner, dtype=torch.float32, device=x.device)
    BLOCK_C = min(triton.next_power_of_2(n_classes), 4096)
    _ce_kernel[(n * n_inner,)](x, target.contiguous(), losses, n_classes, n_inner, BLOCK_C=BLOCK_C)
    # Final mean in a single program (kept small: the mistake is in the kernel above).
    out = torch.empty((), dtype=torch.float32, device=x.device)
    _sum_kernel[(1,)](losses, out, losses.numel(), BLOCK=1024)
    return (out / losses.numel()).to(input.dtype)


@triton.jit
def _sum_kernel(v_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(v_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, tl.sum(acc, axis=0))
