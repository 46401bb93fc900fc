"""Binary cross-entropy with logits in Triton: one streaming pass, the stable softplus form, fp32 accumulation.

Per element, with lw = 1 + (pos_weight - 1) * y (lw = 1 without pos_weight):

    loss = weight * ((1 - y) * x + lw * softplus(-x)),   softplus(-x) = max(-x, 0) + log(1 + exp(-|x|))

The argument of exp is never positive, so nothing overflows: a logit of -200 gives softplus(200) = 200 exactly,
where log(sigmoid(x)) would be log(0). (For |x| > 17, 1 + exp(-|x|) rounds to 1 and the term is dropped: an
absolute error below 4e-8, far inside the tolerance; Triton has no log1p.)

The loss is memory-bound: input and target are read once (8 bytes per element in fp32); `weight` and
`pos_weight` are (C,) vectors over the last dim, indexed with offset % C and served from L1/L2, or full tensors
read alongside (a weight that broadcasts some other way is expanded to a contiguous copy on the host). Inputs
are walked as flat arrays; non-contiguous inputs are first copied with `.contiguous()` (no bench needs it).

For 'none' every program handles one BLOCK-element tile. For 'sum'/'mean' a persistent grid of a few programs
per SM walks the tiles with a grid-sized stride, accumulating the losses in fp32 lanes; each program writes one
partial sum and a one-program kernel adds the partials in a fixed order (deterministic, no atomics) and divides
by N for 'mean'. Offsets are int64.

Expected on an H100 (~3 TB/s): the 'mean' bench reads 4.3 GB (about 1.4 ms); 'none' also writes 2.1 GB (about
2.1 ms). Two transcendentals per element (exp and log on the SFU) stay below the memory time.
"""

import torch
import triton
import triton.language as tl

BLOCK = 2048  # elements per tile
PROGRAMS_PER_SM = 4  # persistent grid size for the reducing launch
NONE, LAST_DIM, FULL = 0, 1, 2  # how `weight` / `pos_weight` are indexed


@triton.jit
def _losses(x_ptr, y_ptr, w_ptr, pw_ptr, offs, mask, C, W_MODE: tl.constexpr, PW_MODE: tl.constexpr):
    x = tl.load(x_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask, other=0.0).to(tl.float32)
    softplus_neg = tl.maximum(-x, 0.0) + tl.log(1.0 + tl.exp(-tl.abs(x)))
    if PW_MODE == 0:
        loss = (1.0 - y) * x + softplus_neg
    else:
        pw_offs = offs % C if PW_MODE == 1 else offs
        pw = tl.load(pw_ptr + pw_offs, mask=mask, other=1.0).to(tl.float32)
        loss = (1.0 - y) * x + (1.0 + (pw - 1.0) * y) * softplus_neg
    if W_MODE != 0:
        w_offs = offs % C if W_MODE == 1 else offs
        loss *= tl.load(w_ptr + w_offs, mask=mask, other=0.0).to(tl.float32)
    return tl.where(mask, loss, 0.0)  # masked lanes (x = 0 gives log 2) add nothing


@triton.jit
def _bce_none_kernel(x_ptr, y_ptr, w_ptr, pw_ptr, out_ptr, n, C, W_MODE: tl.constexpr, PW_MODE: tl.constexpr,
                     BLOCK: tl.constexpr):
    offs = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    mask = offs < n
    loss = _losses(x_ptr, y_ptr, w_ptr, pw_ptr, offs, mask, C, W_MODE, PW_MODE)
    tl.store(out_ptr + offs, loss.to(out_ptr.dtype.element_ty), mask=mask)


@triton.jit
def _bce_partial_kernel(x_ptr, y_ptr, w_ptr, pw_ptr, partial_ptr, n, C, W_MODE: tl.constexpr,
                        PW_MODE: tl.constexpr, BLOCK: tl.constexpr):
    # Grid-stride loop: program pid handles tiles pid, pid + grid, ...; partial sums stay in fp32 lanes.
    pid = tl.program_id(0)
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    step = tl.num_programs(0).to(tl.int64) * BLOCK
    for start in range(pid.to(tl.int64) * BLOCK, n, step):
        offs = start + tl.arange(0, BLOCK)
        acc += _losses(x_ptr, y_ptr, w_ptr, pw_ptr, offs, offs < n, C, W_MODE, PW_MODE)
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


@triton.jit
def _finish_kernel(partial_ptr, out_ptr, n_partials, scale, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for start in range(0, n_partials, BLOCK):
        offs = start + tl.arange(0, BLOCK)
        acc += tl.load(partial_ptr + offs, mask=offs < n_partials, other=0.0)
    tl.store(out_ptr, (tl.sum(acc, axis=0) * scale).to(out_ptr.dtype.element_ty))


def _operand(t, shape, C):
    """A weight-like tensor and how the kernel indexes it: none, a (C,) vector over the last dim, or full."""
    if t is None:
        return None, NONE
    if t.numel() == C and (t.dim() <= 1 or all(s == 1 for s in t.shape[:-1])):
        return t.reshape(-1).contiguous(), LAST_DIM
    return t.expand(shape).contiguous(), FULL


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean", pos_weight=None):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    x = input.contiguous()
    y = target.contiguous()
    n = x.numel()
    C = x.shape[-1] if x.dim() else 1
    w, w_mode = _operand(weight, x.shape, C)
    pw, pw_mode = _operand(pos_weight, x.shape, C)
    modes = dict(W_MODE=w_mode, PW_MODE=pw_mode, BLOCK=BLOCK, num_warps=8)

    if reduction == "none":
        out = torch.empty(x.shape, dtype=x.dtype, device=x.device)
        if n:
            _bce_none_kernel[(triton.cdiv(n, BLOCK),)](x, y, w, pw, out, n, C, **modes)
        return out
    sms = torch.cuda.get_device_properties(x.device).multi_processor_count if x.device.type == "cuda" else 132
    grid = max(1, min(triton.cdiv(n, BLOCK), PROGRAMS_PER_SM * sms))
    partials = torch.empty(grid, dtype=torch.float32, device=x.device)
    _bce_partial_kernel[(grid,)](x, y, w, pw, partials, n, C, **modes)
    out = torch.empty((), dtype=x.dtype, device=x.device)
    scale = (1.0 / n if n else float("nan")) if reduction == "mean" else 1.0
    _finish_kernel[(1,)](partials, out, grid, scale, BLOCK=1024, num_warps=4)
    return out
