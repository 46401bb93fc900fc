"""Dropout: zero each element with probability p and scale the survivors by 1 / (1 - p).

    dropout(x, p, training)_i = x_i / (1 - p) * keep_i,   keep_i ~ Bernoulli(1 - p) independently   (training)
    dropout(x, p, training=False) = x

Mirrors `torch.nn.functional.dropout(input, p=0.5, training=True)`, with one more parameter, `seed`: a candidate
must derive all its randomness from this integer (same seed, same output), e.g. with Triton's Philox
`tl.rand(seed, offsets)`. No task may demand torch's own random stream, so the reference runs F.dropout under
`torch.manual_seed(seed)` only to be deterministic, and the outputs are judged by what any faithful dropout
satisfies (contract `statistical`, `check_outputs` below), never compared element by element:

- training=False, or p = 0: the output equals the input exactly. (F.dropout then returns the input itself; a
  kbx candidate returns a new tensor written by its own kernel, as for every call.)
- p = 1 (training): every element is dropped, and the output is all zeros (F.dropout's), never 0 / 0 = NaN.
- Otherwise (0 < p < 1) every element is 0 or x_i / (1 - p) to within 4 eps of the dtype (relative; fp32 2^-21,
  fp16 2^-8, bf16 2^-5) plus a subnormal step: computing x * (1 / (1 - p)) in fp32 and rounding once uses at most
  a quarter of that, and x / (1 - p) written with Triton's `/` (div.full.f32, within 2 ulps) up to about 3 ulps
  against PyTorch's x * (1 / (1 - p)): 2 eps rejected 788 elements of such a kernel on an H200 (2026-11-28). A wrong
  scale (x / p, x (1 - p), none) is off by far more. Zero inputs must give zero and tell nothing about the mask,
  so they are left out of the statistics.
- The kept count K of the n nonzero inputs lies within a Bernstein bound of n (1 - p) at false-failure
  probability 1e-10 (about 7 sigma when n p (1 - p) is large).
- The mask is serially independent: for every lag L up to m/2 over the first m = min(n, 2^21) elements,
  C_L = sum_i y_i y_{i+L} with y_i = keep_i - (1 - p) stays within twice a Bernstein bound for half its variance
  (the pairs split into two sets of independent terms), at 1e-9 for all lags together. This is checked in the
  logical element order and in the input's memory order, and catches a kernel whose masks repeat from block to
  block (Philox offsets local to a block, one random number per block, ...): such a mask gives C_L of order
  n p (1 - p) against a bound of order sqrt(n), tens of times over.
So a correct dropout fails a case with probability below 3e-9 (1e-10 + 1e-9 per element order). Measured on the CPU
interpreter (4 seeds, every smoke and check case, 3 dtypes): the solution uses at most 0.37 of the count bound and
0.41 of the serial bound; a missing 1 / (1 - p) is off by a factor 1 - p (against 2.4e-7 in fp32), keeping with
probability p puts the count 33 times the bound away at p = 0.9, block-local offsets exceed the serial bound 4.9
times on the smoke case (more on larger ones), dropping at inference changes every element, and dividing the
masked input by 1 - p in the kernel gives NaN for every element at p = 1.

Inputs are normal values with an offset and outliers (never exactly 0); p covers 0, 0.1, 0.5, 0.9 and 1 and
training=False; layouts are contiguous, transposed and strided. The seed is drawn with the inputs.

`bench_over_2_31` (65537 x 32768: 2^31 + 32768 elements) is where offsets, or a random stream indexed by a
32-bit offset, overflow; it runs on GPUs with 139 GiB or more (`min_gpu_gib`).
"""


import torch
import torch.nn.functional as F

from kbx.tasks import inputs, randomness

TASK = {
    "name": "dropout",
    "category": "Random",
    "level": 1,
    "signature": "(input, p=0.5, training=True, seed=0)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["dropout", "native_dropout", "fused_dropout", "feature_dropout", "alpha_dropout",
                  "feature_alpha_dropout", "dropout1d", "dropout2d", "dropout3d", "rand", "rand_like", "randn",
                  "randn_like", "randint", "randint_like", "bernoulli", "uniform", "normal", "random", "randperm",
                  "multinomial", "manual_seed", "fork_rng", "Generator"],
    "contract": {"kind": "statistical"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4096], "p": 0.5}},
        {"name": "check_tail_p09", "role": "check", "params": {"shape": [8193], "p": 0.9}},
        {"name": "check_2d_t", "role": "check", "params": {"shape": [129, 127], "p": 0.5, "layout": "transposed"}},
        {"name": "check_3d_strided_p01", "role": "check",
         "params": {"shape": [3, 33, 65], "p": 0.1, "layout": "strided"}},
        {"name": "check_p0", "role": "check", "params": {"shape": [65, 129], "p": 0.0}},
        {"name": "check_eval", "role": "check", "params": {"shape": [33, 257], "p": 0.5, "training": False}},
        {"name": "check_p1", "role": "check", "params": {"shape": [33, 65], "p": 1.0}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 16384], "p": 0.5}},
        {"name": "bench_over_2_31", "role": "bench", "min_gpu_gib": 139, "timed": False,
         "params": {"shape": [65537, 32768], "p": 0.5}},
        {"name": "bench_p09", "role": "bench", "params": {"shape": [16, 2048, 16384], "p": 0.9}},
    ],
}


def reference(input, p=0.5, training=True, seed=0):
    # torch's own stream, seeded so that the reference is deterministic; candidates need not reproduce it.
    devices = [input.device] if input.device.type == "cuda" else []
    with torch.random.fork_rng(devices=devices):
        torch.manual_seed(seed)
        return F.dropout(input, p=p, training=training)


def make_inputs(workload, dtype, generator):
    p = workload.params
    x = inputs.randn(p["shape"], dtype, generator, scale=2.0, offset=0.5)
    x = inputs.with_outliers(x, generator, fraction=1e-3, magnitude=40.0)
    x = torch.where(x == 0, torch.ones_like(x), x)  # a zero input hides whether its element was kept
    seed = int(inputs.randint(0, 2**31 - 1, [1], generator).item())
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "p": p["p"],
            "training": p.get("training", True), "seed": seed}


# ----- the statistical contract -------------------------------------------------------------------------------

_DELTA = 1e-10
"""False-failure probability allotted to each count bound; the serial test gets 1e-9 over all its lags."""
_PREFIX = 1 << 21
"""Elements (in each order) that the serial-dependence test looks at: lags up to 2^20."""
_CHUNK = 1 << 24


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when the output is a faithful dropout of the input, else why not (see the module docstring)."""
    out, x = outputs[0], inputs["input"]
    p, training = float(inputs["p"]), bool(inputs["training"])
    out = out.to(x.device)
    if not training or p == 0.0:
        differ = int((out != x).sum())
        if differ:
            return f"{differ} of {x.numel()} elements differ from the input (training={training}, p={p})"
        return None
    if p == 1.0:
        nonzero = int((out != 0).sum())  # a NaN is != 0 and counts
        if nonzero:
            return f"{nonzero} of {x.numel()} elements are not 0 (p = 1 drops every element)"
        return None
    keep_p = 1.0 - p
    finfo = torch.finfo(x.dtype)
    rtol, atol = 4 * finfo.eps, 2 * finfo.tiny * finfo.eps
    flat_out, flat_x = out.reshape(-1), x.reshape(-1)
    kept = bad = zeros_wrong = n = 0
    for start in range(0, flat_x.numel(), _CHUNK):
        o = flat_out[start:start + _CHUNK].double()
        xs = flat_x[start:start + _CHUNK].double()
        scaled = xs / keep_p
        is_kept = o != 0
        nonzero = xs != 0
        zeros_wrong += int((is_kept & ~nonzero).sum())
        bad += int((is_kept & ~((o - scaled).abs() <= atol + rtol * scaled.abs())).sum())  # NaN is bad
        kept += int((is_kept & nonzero).sum())
        n += int(nonzero.sum())
    if zeros_wrong:
        return f"{zeros_wrong} zero inputs give nonzero outputs"
    if bad:
        return (f"{bad} kept elements are not input / (1 - p) = input * {1 / keep_p:.6g} "
                f"(to {rtol:.2g} relative)")
    if n == 0:
        return None
    slack = randomness.bernstein(n * p * keep_p, 1.0, _DELTA)
    if abs(kept - n * keep_p) > slack:
        return (f"kept {kept} of {n} elements ({kept / n:.4f}); a keep rate of 1 - p = {keep_p:.4f} allows "
                f"{n * keep_p:.0f} +- {slack:.0f}")
    for order, (o, xs) in randomness.orders(x, out, x, prefix=_PREFIX):
        nonzero = (xs != 0).double()
        why = randomness.serial_dependence(((o != 0).double() - keep_p) * nonzero, nonzero * (p * keep_p),
                                           max(p, keep_p), prefix=_PREFIX, delta=_DELTA)
        if why:
            return f"the kept/dropped mask is serially dependent ({order} order): {why}"
    return None
