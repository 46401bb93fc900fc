"""Dot product in Triton: a persistent grid of programs, fp32 partial sums, then one deterministic final sum.

Stage 1. A fixed grid of up to 1024 programs (a few per SM) strides over the vectors in BLOCK-element chunks:
program p handles chunks p, p + G, p + 2G, ... (G programs). Each keeps a BLOCK-wide fp32 accumulator of
elementwise products in registers, so the loop is loads and FMAs only, reduces it once at the end (`tl.sum`) and
writes one fp32 partial sum. Stage 2. A single program adds the G partials in a fixed order and rounds once to
the output dtype. No atomics: the result is the same on every run.

Memory traffic. Each element of both vectors is read once: 2 * N * itemsize bytes, the whole cost. Strided vectors
are read in place through their stride (a strided read wastes the unused part of each 32-byte sector, which is the
caller's layout's price). Offsets are 64-bit: chunk * BLOCK * stride passes 2^31 in the bench.

Speed. The bench reads 4.3 GB in float32 (2.1 GB in bfloat16): about 1.5 ms (0.8 ms) at ~2.8 TB/s on an H100.
Only a launch of at least `_TUNE_MIN_MACS` multiply-adds (the bench, no check) is autotuned; smaller ones take the
first config, as autotuning each of the many check shapes cost minutes of GPU time and only the bench is timed.
"""

import torch
import triton
import triton.language as tl

_MAX_PROGRAMS = 1024
_CONFIGS = [
    # The first config is the fixed one of small launches (and the only one the CPU interpreter runs).
    triton.Config({"BLOCK": 4096}, num_warps=8),
    triton.Config({"BLOCK": 2048}, num_warps=8),
    triton.Config({"BLOCK": 1024}, num_warps=4),
    triton.Config({"BLOCK": 8192}, num_warps=16),
]
_FIXED = _CONFIGS[0]
# Multiply-adds (vector length) of a launch from which it is autotuned: the bench does 5.4e8, no smoke or check
# workload (nor a perturbed copy, which is never longer) over 2.7e5.
_TUNE_MIN_MACS = 1 << 24


@triton.jit
def _dot_partials_kernel(a_ptr, b_ptr, partial_ptr, N, stride_a, stride_b, BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    num_programs = tl.num_programs(0)
    offs = tl.arange(0, BLOCK).to(tl.int64)  # 64-bit, so idx * stride cannot overflow
    acc = tl.zeros((BLOCK,), dtype=tl.float32)
    for chunk in range(pid, tl.cdiv(N, BLOCK), num_programs):
        idx = chunk * BLOCK + offs
        ok = idx < N
        a = tl.load(a_ptr + idx * stride_a, mask=ok, other=0.0)
        b = tl.load(b_ptr + idx * stride_b, mask=ok, other=0.0)
        acc += a.to(tl.float32) * b.to(tl.float32)
    tl.store(partial_ptr + pid, tl.sum(acc, axis=0))


_tuned_dot_partials_kernel = triton.autotune(configs=_CONFIGS, key=["N"])(_dot_partials_kernel)


@triton.jit
def _sum_partials_kernel(partial_ptr, out_ptr, G, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    p = tl.load(partial_ptr + offs, mask=offs < G, other=0.0)
    tl.store(out_ptr, tl.sum(p, axis=0).to(out_ptr.dtype.element_ty))


def dot(input, tensor):
    assert input.dim() == 1 and input.shape == tensor.shape, "dot takes two 1-D tensors of the same length"
    N = input.shape[0]
    out = torch.empty((), device=input.device, dtype=input.dtype)
    G = max(1, min(_MAX_PROGRAMS, triton.cdiv(N, 1024)))
    partials = torch.empty((G,), device=input.device, dtype=torch.float32)
    # Always G programs, whatever BLOCK the autotuner tries: each writes its slot (0 when it has no chunk), so no
    # slot keeps a partial from an autotuning run of another config (which the final sum would add again).
    # Autotuned from `_TUNE_MIN_MACS` multiply-adds up, else with the fixed first config.
    args = (input, tensor, partials, N, input.stride(0), tensor.stride(0))
    if N >= _TUNE_MIN_MACS:
        _tuned_dot_partials_kernel[(G,)](*args)
    else:
        _dot_partials_kernel[(G,)](*args, **_FIXED.kwargs, num_warps=_FIXED.num_warps, num_stages=_FIXED.num_stages)
    _sum_partials_kernel[(1,)](partials, out, G, BLOCK=triton.next_power_of_2(G))
    return out
