"""Language-model head and loss in one: `F.cross_entropy(F.linear(input, weight), target)`.

    logits[i, v] = sum_k input[i, k] * weight[v, k]                 (M x V, V = vocabulary size)
    loss_i = logsumexp_v(logits[i, v]) - logits[i, target[i]]
    out = mean_i loss_i

Mirrors `torch.nn.functional.linear` (no bias) followed by `torch.nn.functional.cross_entropy` with its
defaults (reduction='mean', no class weights, no label smoothing, no ignored targets): `input` is the (M, K)
final hidden states, `weight` the (V, K) output embedding, `target` (M,) int64 class indices in [0, V). The
output is a 0-d tensor in the input's dtype (float16 or bfloat16). Products are summed in fp32. The point of
the task is fusion: the logits are never materialised in full. A fused kernel computes them tile by tile
(BLOCK_M rows x BLOCK_V vocabulary entries at a time), folds each tile into a running maximum and sum of
exponentials per row (an online logsumexp) and picks out the target logit on the way, so the M x V logits
(1 GB for the 4096 x 128256 bench) are never written to memory.

Workloads cover vocabulary sizes that straddle block sizes (257, 1000, 2049) and one longer than any block a
row may be capped at (9001, past 8192, whose entries past 8192 carry most of the softmax mass: a kernel that
reduced each row in one block of at most 8192 logits passed every other workload), odd row counts and hidden sizes
(33, 65, 127, 129), a column-major input with a transposed weight (a (K, V) tensor viewed as (V, K)), and a
workload with large logits. Values: `input` is normal with a few outliers (+-6), `weight` normal with standard
deviation `gain` / sqrt(K), so the logits have a standard deviation of about `gain`: 2 (a confident but not
one-hot softmax) or 40, where logits reach a few hundred and exp overflows float32 (a logsumexp without max
subtraction returns inf). Targets are uniform over the vocabulary. One workload has flat logits (gain 0.1) over
V = 129, just past a power of two: vocabulary columns past V that a kernel leaves at logit 0 instead of -inf add
almost as much to the softmax's denominator as the real ones (with confident logits over a wide vocabulary they
move the mean loss by only a few thousandths).

Tolerance: float16 2e-3 + 3e-3 |ref|, bfloat16 3e-2 + 3e-2 |ref| on the mean loss, which is about 5-9 (gain 2)
or ~100 (gain 40). The reference rounds every logit to the input dtype (half an ulp of a logit of up to a few
hundred), rounds its log-probabilities again and averages them; on the CPU it is itself up to 0.38 of these
tolerances away from an fp64 evaluation (the defaults would put it at 1.1). A fused kernel keeps the logits in
fp32. Measured (CPU interpreter, seeds 0-2): the solution uses at most 0.31 of the float16 tolerance and 0.41 of
the bfloat16 one (0.11 and 0.07 against fp64); the wrong candidates exceed it by far or return inf.
"""


import torch
import torch.nn.functional as F

from kbx.tasks import inputs, sizes

TASK = {
    "name": "linear_cross_entropy",
    "category": "Fusion",
    "level": 2,
    "signature": "(input, weight, target)",
    "dtypes": ["float16", "bfloat16"],
    "forbidden": ["matmul", "rmatmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "einsum", "tensordot", "addmm",
                  "addbmm", "baddbmm", "addmv", "linear", "bilinear", "chain_matmul", "multi_dot", "vecdot", "sum",
                  "@", "cross_entropy", "CrossEntropyLoss", "nll_loss", "log_softmax", "softmax", "logsumexp",
                  "exp", "log", "gather", "take_along_dim"],
    "contract": {"kind": "allclose", "reduction_length": "K", "tensor_cores": True,
                 "tolerance": {"float16": [2e-3, 3e-3], "bfloat16": [3e-2, 3e-2]}},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"M": 32, "K": 64, "V": 500, "gain": 2.0}},
        {"name": "check_odd", "role": "check", "params": {"M": 65, "K": 129, "V": 1000, "gain": 2.0}},
        {"name": "check_vocab_2049", "role": "check", "params": {"M": 33, "K": 65, "V": 2049, "gain": 2.0}},
        {"name": "check_transposed", "role": "check",
         "params": {"M": 127, "K": 127, "V": 257, "gain": 2.0, "input_layout": "transposed",
                    "weight_layout": "transposed"}},
        {"name": "check_large_logits", "role": "check", "params": {"M": 33, "K": 65, "V": 1000, "gain": 40.0}},
        {"name": "check_flat_logits_tail", "role": "check", "params": {"M": 33, "K": 65, "V": 129, "gain": 0.1}},
        {"name": "check_long_vocab_late", "role": "check",
         "params": {"M": 9, "K": 33, "V": 9001, "gain": 2.0, "late": True}},
        {"name": "bench_vocab_128k", "role": "bench", "params": {"M": 4096, "K": 4096, "V": 128256, "gain": 2.0}},
    ],
}


def reference(input, weight, target):
    # Ask cuBLAS to sum in fp32 throughout: by default PyTorch lets it add split-K partial sums in fp16/bf16.
    flags = torch.backends.cuda.matmul
    allowed = flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction
    flags.allow_fp16_reduced_precision_reduction = flags.allow_bf16_reduced_precision_reduction = False
    try:
        return F.cross_entropy(F.linear(input, weight), target)
    finally:
        flags.allow_fp16_reduced_precision_reduction, flags.allow_bf16_reduced_precision_reduction = allowed


def make_inputs(workload, dtype, generator):
    p = workload.params
    M, K, V = p["M"], p["K"], p["V"]
    x = inputs.randn([M, K], dtype, generator)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=6.0)
    w = inputs.randn([V, K], dtype, generator, scale=p["gain"] / K**0.5)
    if p.get("late"):
        # The vocabulary entries past the largest power of two below V get twice the gain: they hold most of
        # every row's softmax mass, so a kernel that reads only a prefix of each row misses it.
        w[1 << (V - 1).bit_length() - 1:] *= 2
    return {
        "input": inputs.layout(x, p.get("input_layout", "contiguous")),
        "weight": inputs.layout(w, p.get("weight_layout", "contiguous")),
        "target": inputs.randint(0, V, [M], generator),
    }


def perturb(workload, rng):
    # M, K and V move in one draw (no more logits or operand elements); gain and layouts stay.
    p = workload.params
    cost = lambda d: (d[0] * d[2], d[1] * (d[0] + d[2]))
    m, k, v = sizes.shape_near(rng, [p["M"], p["K"], p["V"]], cost=cost)
    return {**p, "M": m, "K": k, "V": v}
