"""Walks input and target each in its own memory order, to avoid copying a transposed operand.

The writer reasoned that an elementwise loss may visit its elements in any order and read every dense operand
in storage order (a transposed view in place, no .contiguous() copy), the output allocated with
torch.empty_like(input) and written in the input's storage order. That pairs input[i] with target[i] only when
the two share a memory layout: a contiguous target next to a transposed input (or a transposed target next to a
strided input) is read in a different order, and each input element meets another element's target.
"""

import torch
import triton
import triton.language as tl

EXPECT = "MISMATCH"

BLOCK = 4096  # elements per tile: 16 KB of each fp32 operand in flight per program and iteration
PROGRAMS_PER_SM = 4  # persistent grid size for the reducing launch


@triton.jit
def _l1_kernel(x_ptr, y_ptr, out_ptr, n, REDUCE: tl.constexpr, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    lanes = tl.arange(0, BLOCK)
    if REDUCE:
        # Grid-stride loop: program pid handles tiles pid, pid + grid, ...; partial sums stay in fp32 lanes.
        acc = tl.zeros([BLOCK], dtype=tl.float32)
        step = tl.num_programs(0).to(tl.int64) * BLOCK
        for start in range(pid.to(tl.int64) * BLOCK, n, step):
            offs = start + lanes
            mask = offs < n
            x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
            # fp32 difference of two fp16 values, |.| exact; masked lanes add |0 - 0|.
            acc += tl.abs(x - y)
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))
    else:
        offs = pid.to(tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
        tl.store(out_ptr + offs, tl.abs(x - y).to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, scale, BLOCK: tl.constexpr):
    # One program: add the per-program partial sums in a fixed order, scale, round once to the output dtype.
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def _storage_order(t):
    # A dense tensor (contiguous, or a permutation of its dims such as a transposed view) is read in place, in
    # the order its elements lie in memory: an elementwise loss does not care in which order it visits them.
    # Anything else (a slice with gaps) is copied.
    if t.is_contiguous():
        return t.view(-1)
    order = sorted(range(t.dim()), key=lambda d: -t.stride(d))
    p = t.permute(order)
    return p.view(-1) if p.is_contiguous() else t.contiguous().view(-1)


def l1_loss(input, target, reduction="mean"):
    x = _storage_order(input)
    y = _storage_order(target)
    n = x.numel()
    if reduction == "none":
        out = torch.empty_like(input)
        out_flat = _storage_order(out)
        if n:
            _l1_kernel[(triton.cdiv(n, BLOCK),)](x, y, out_flat, n, REDUCE=False, BLOCK=BLOCK, num_warps=8)
        return out
    if reduction not in ("mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")

    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    grid = max(1, min(triton.cdiv(n, BLOCK), PROGRAMS_PER_SM * sms))
    partials = torch.empty(grid, dtype=torch.float32, device=x.device)
    _l1_kernel[(grid,)](x, y, partials, n, REDUCE=True, BLOCK=BLOCK, num_warps=8)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = 1.0 / n if reduction == "mean" and n else (float("nan") if reduction == "mean" else 1.0)
    _finish_kernel[(1,)](partials, out, grid, scale, BLOCK=1024, num_warps=4)
    return out
