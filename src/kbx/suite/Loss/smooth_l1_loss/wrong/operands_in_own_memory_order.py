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
def _loss(x, y, beta, half_beta, inv_beta, dtype: tl.constexpr):
    # PyTorch computes `input - target` in the input dtype (bf16 rounds it); the rest in fp32 and rounded once.
    z = tl.abs((x - y).to(dtype).to(tl.float32))
    # Both branches are computed and one is selected per lane; with beta = 0 no z is below beta, so the result
    # is z (the host passes inv_beta = 0 then rather than dividing by zero).
    return tl.where(z < beta, 0.5 * z * z * inv_beta, z - half_beta)


@triton.jit
def _smooth_l1_kernel(x_ptr, y_ptr, out_ptr, n, beta, half_beta, inv_beta, REDUCE: tl.constexpr,
                      BLOCK: tl.constexpr):
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
            # Masked lanes hold 0 - 0, whose loss is 0 (beta > 0) or 0 - 0 (beta = 0): they add nothing.
            acc += _loss(x, y, beta, half_beta, inv_beta, x_ptr.dtype.element_ty)
        tl.store(out_ptr + pid, tl.sum(acc, axis=0))
    else:
        offs = pid.to(tl.int64) * BLOCK + lanes
        mask = offs < n
        x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
        y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
        loss = _loss(x, y, beta, half_beta, inv_beta, x_ptr.dtype.element_ty)
        tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


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


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    if beta < 0:
        raise ValueError("smooth_l1_loss does not support negative values for beta.")
    # Scalars for the kernel: 1 / beta is only used where z < beta, which never happens for beta = 0.
    consts = (float(beta), 0.5 * beta, 1.0 / beta if beta > 0 else 0.0)
    x = _storage_order(input)
    y = _storage_order(target)
    n = x.numel()
    if reduction == "none":
        out = torch.empty_like(input)
        out_flat = _storage_order(out)
        if n:
            _smooth_l1_kernel[(triton.cdiv(n, BLOCK),)](x, y, out_flat, n, *consts, REDUCE=False, BLOCK=BLOCK,
                                                        num_warps=8)
        return out
    if reduction not in ("mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")

    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    grid = max(1, min(triton.cdiv(n, BLOCK), PROGRAMS_PER_SM * sms))
    partials = torch.empty(grid, dtype=torch.float32, device=x.device)
    _smooth_l1_kernel[(grid,)](x, y, partials, n, *consts, REDUCE=True, BLOCK=BLOCK, num_warps=8)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = 1.0 / n if reduction == "mean" and n else (float("nan") if reduction == "mean" else 1.0)
    _finish_kernel[(1,)](partials, out, grid, scale, BLOCK=1024, num_warps=4)
    return out
