"""A linear layer with a LoRA adapter: `F.linear(input, weight) + scale * F.linear(F.linear(input, lora_a), lora_b)`.

    base[..., n] = sum_k input[..., k] * weight[n, k]
    t[..., r]    = sum_k input[..., k] * lora_a[r, k]              (the rank-R down projection)
    out[..., n]  = base[..., n] + scale * sum_r t[..., r] * lora_b[n, r]

The forward pass of a LoRA-adapted nn.Linear without bias (scale = alpha / rank), written with
`torch.nn.functional.linear`, `*` and `+`: `input` is (M, K) or (B, S, K), `weight` is (N, K), `lora_a` is
(R, K), `lora_b` is (N, R), `scale` is a Python float, and the output has the input's leading dimensions, N
features and the input's dtype (float16 or bfloat16). Products are summed in fp32. The point of the task is
fusion: one kernel accumulates the base product and the rank-R down projection t from the same input tiles,
then adds scale * t @ lora_b^T in its epilogue, so neither t (M x R), the adapter's output nor the base output
is ever written to memory before the sum (the unfused composition writes and re-reads all three).

Workloads cover ranks 8, 16, 32 and 64 (8 is below the 16-wide minimum of a tensor-core dot and must be
padded), 2-D and 3-D inputs, odd sizes that straddle tile boundaries (127, 129, 65, 33), a column-major input
with a transposed base weight, transposed adapter matrices (a kernel that indexes lora_a and lora_b as dense
passed every other workload), and scales 0.5 and 2 (never 1, so a scale applied twice or to the base output
shows). Values: `input` is normal with a few outliers (+-6), `weight` and `lora_a` normal with standard
deviation 1 / sqrt(K), `lora_b` normal with standard deviation 1 / sqrt(R): base and adapter terms are both
O(1). Check workloads keep K <= 129 but one: `check_long_k_offset` has K = 2049, inputs offset by 16 (a large
common activation, as outlier channels give) and weight and lora_a rows centred to sum to zero, so the offset
cancels in the outputs (still O(1)) but not in the running sums, which reach 20 to 40: a kernel that keeps its
accumulator in the input dtype rounds them at 2^-6 to 2^-5 every K step and misses by 1.8x the truth rule's
normwise bound (19 of 4355 float16 elements past their own, CPU interpreter), where at K <= 129 (two or three
steps) the same mistake hides. With an offset of 8 it missed the normwise bound and only 1 element passed its own
bound (1.02x), too near to hold on every seed.

Tolerance: float16 |out - ref| <= 1e-2 + 3e-3 |ref|; bfloat16 7e-2 + 2e-2 |ref|. Every implementation rounds t
to the input dtype (it is the operand of the second product), and two faithful ones can round one t[m, r] to
neighbouring values where their fp32 sums differ in the last bits: that moves every output of row m by
ulp(t) * |lora_b[n, r]| * scale. With |t| < 8 (t is close to N(0, 1): 4.5 sigma over the bench's 131k values),
|lora_b| <= 1 and scale <= 2 that is up to 2^-8 * 2 = 7.8e-3 in float16 and 6.3e-2 in bfloat16, so atol covers
one such flip (an H200 run with atol 3e-3 failed the solution on 1 of 134M bench elements, by 7.81e-3; the
float64 second opinion cannot help, since the solution rounds t as the reference does). The reference also
rounds the adapter output, its scaled copy and the base output before the sum. Measured (CPU interpreter, seeds
0-2, with the earlier atol 3e-3 / 2.5e-2): the solution used at most 0.54 of the float16 tolerance and 0.50 of
the bfloat16 one; both wrong candidates miss by O(1) errors (the base term or the adapter term scaled wrongly).

`check_3d_rank8`'s input holds the first 33 positions of longer sequences (`inputs.seq_slice`), so its leading dims
do not merge: a kernel that flattens them into rows by stepping the row stride, with no reshape, reads the wrong
rows after the first sequence.
"""

import math

import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "lora_linear",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, weight, lora_a, lora_b, scale)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@"],
    "contract": {
        "kind": "allclose", "reduction_length": "input[-1]", "tensor_cores": True,
        "insensitive": {
            "workloads": ["check_odd", "check_3d_rank8", "check_transposed", "check_rank64", "check_long_k_offset"],
            "reason": (
                "the reference rounds the base product, x A^T and the low-rank product to the dtype before "
                "adding them, as an unfused kernel does: where they cancel, those roundings are more than half "
                "of the output (3-6 % in bf16)"
            ),
        },
        "tolerance": {"float16": [1e-2, 3e-3], "bfloat16": [7e-2, 2e-2]},
    },
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"input": [64, 96], "N": 80, "rank": 16, "scale": 2.0}},
        {"name": "check_odd", "role": "check", "params": {"input": [127, 129], "N": 65, "rank": 16, "scale": 0.5}},
        {"name": "check_3d_rank8", "role": "check",
         "params": {"input": [3, 33, 65], "N": 127, "rank": 8, "scale": 2.0, "input_layout": "seq_slice"}},
        {"name": "check_transposed", "role": "check",
         "params": {"input": [129, 127], "N": 65, "rank": 32, "scale": 0.5, "input_layout": "transposed",
                    "weight_layout": "transposed"}},
        {"name": "check_rank64", "role": "check",
         "params": {"input": [65, 127], "N": 129, "rank": 64, "scale": 2.0, "lora_layout": "transposed"}},
        {"name": "check_long_k_offset", "role": "check",
         "params": {"input": [65, 2049], "N": 67, "rank": 16, "scale": 2.0, "offset": 16.0}},
        {"name": "bench_rank16", "role": "bench",
         "params": {"input": [16384, 8192], "N": 8192, "rank": 16, "scale": 2.0}},
        {"name": "bench_3d_rank64", "role": "bench",
         "params": {"input": [4, 4096, 4096], "N": 14336, "rank": 64, "scale": 0.5}},
    ],
}


def reference(input, weight, lora_a, lora_b, scale):
    # Ask cuBLAS to sum in fp32 throughout: by default PyTorch lets it add split-K partial sums in fp16/bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = flags.allow_bf16_reduced_precision_reduction = False
    try:
        return F.linear(input, weight) + scale * F.linear(F.linear(input, lora_a), lora_b)
    finally:
        flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction = allowed


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["input"]
    K, N, R = shape[-1], p["N"], p["rank"]
    x = inputs.randn(shape, dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=6.0)
    w = inputs.randn([N, K], dtype, generator, scale=1.0 / K**0.5)
    a = inputs.randn([R, K], dtype, generator, scale=1.0 / K**0.5)
    if p.get("offset"):
        # A common offset on every input, against weight rows that sum to zero: the outputs stay O(1), the running
        # sums of the K loop do not.
        x = (x.float() + p["offset"]).to(x.dtype)
        w = (w.float() - w.float().mean(dim=1, keepdim=True)).to(w.dtype)
        a = (a.float() - a.float().mean(dim=1, keepdim=True)).to(a.dtype)
    b = inputs.randn([N, R], dtype, generator, scale=1.0 / R**0.5)
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "weight": inputs.layout(w, p.get("weight_layout", "contiguous")),
        "lora_a": inputs.layout(a, p.get("lora_layout", "contiguous")),
        "lora_b": inputs.layout(b, p.get("lora_layout", "contiguous")),
        "scale": p["scale"],
    }


def perturb(workload, rng):
    # Leading dims and N move in one draw (neither their product nor their sum grows); K only shrinks. Rank,
    # scale, offset and layouts stay.
    p = workload.params
    cost = lambda d: (math.prod(d), math.prod(d[:-1]) + d[-1])
    *lead, n = sizes.shape_near(rng, [*p["input"][:-1], p["N"]], cost=cost)
    return {**p, "input": [*lead, sizes.odd_near(rng, p["input"][-1], high=1.0)], "N": n}
