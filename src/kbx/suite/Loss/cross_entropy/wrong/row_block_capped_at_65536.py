"""Holds each row of logits in one block, capped at 65536 classes, with no loop over the rest.

One program per sample loads its whole row into registers (`BLOCK = next_power_of_2(C)`), takes the max, the
sum of exp(x - max) and the target's logit, and writes the loss; a second kernel takes the mean. To keep the
register file from spilling without end, the block is capped at 65536 classes (256 KB of fp32 per program) and
the writer forgot that the cap then needs a loop: classes past 65536 are silently left out of the log-sum-exp.
Every smoke and check workload has at most 40000 classes (`check_long_rows`; its perturbed copy at most 60000),
so the cap never bites there; the bench `bench_vocab_128k` has 128256, and its log-sum-exp misses half the
classes (MISMATCH).

A cap at 4096 or 8192 would not be GPU-only: `check_long_rows` (40000 classes) exposes it on the CPU. This one
needs a row longer than every check size and shorter than a bench row, so only a GPU (which runs the benches)
sees it.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"
DEVICE = "cuda"

MAX_BLOCK = 65536  # classes held in registers by one program


@triton.jit
def _ce_row_kernel(x_ptr, t_ptr, loss_ptr, n_cols, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.arange(0, BLOCK)
    x = tl.load(x_ptr + row * n_cols + cols, mask=cols < n_cols, other=float("-inf")).to(tl.float32)
    m = tl.max(x, axis=0)
    s = tl.sum(tl.exp(x - m), axis=0)
    target = tl.load(t_ptr + row)
    x_t = tl.load(x_ptr + row * n_cols + target).to(tl.float32)
    tl.store(loss_ptr + row, tl.log(s) - (x_t - m))  # both terms small: exact when the logits are ~1000


@triton.jit
def _mean_kernel(loss_ptr, out_ptr, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], tl.float32)
    for start in range(0, n, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(loss_ptr + offs, mask=offs < n, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) / n).to(out_ptr.dtype.element_ty))


def cross_entropy(input, target):
    if input.dim() == 1:
        input, target = input[None], target[None]
    n_classes = input.shape[1]
    x = input.movedim(1, -1).reshape(-1, n_classes).contiguous()  # (N, C, d1...) -> one row per position
    t = target.reshape(-1).contiguous()
    rows = x.shape[0]
    losses = torch.empty(rows, dtype=torch.float32, device=x.device)
    out = torch.empty((), dtype=input.dtype, device=input.device)
    block = min(triton.next_power_of_2(n_classes), MAX_BLOCK)
    num_warps = min(32, max(4, block // 2048))  # 64 logits a thread at the cap
    _ce_row_kernel[(rows,)](x, t, losses, n_classes, BLOCK=block, num_warps=num_warps)
    _mean_kernel[(1,)](losses, out, rows, BLOCK=1024, num_warps=4)
    return out
