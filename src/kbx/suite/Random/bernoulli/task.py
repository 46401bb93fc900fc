"""Bernoulli sampling: each output element is 1 with the probability held by the input element, else 0.

    bernoulli(input, seed)_i ~ Bernoulli(input_i) independently,   0 <= input_i <= 1

Mirrors `torch.bernoulli(input)`, with one more parameter, `seed`: a candidate must derive all its randomness from
this integer (same seed, same output), e.g. with Triton's Philox `tl.rand(seed, offsets)` and `u < p`. The output
has the input's shape and dtype and holds only 0 and 1. No task may demand torch's own random stream, so the
reference seeds a torch.Generator only to be deterministic, and the outputs are judged by what any faithful
sampler satisfies (contract `statistical`, `check_outputs` below), never compared element by element:

- Every output is exactly 0 or 1; where p = 0 it is 0 and where p = 1 it is 1.
- Rates per probability bucket: the elements with 0 < p < 1 are grouped by p into 11 buckets (edges 0.001, 0.01,
  0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 0.99, 0.999); in each, the count of ones S lies within a Bernstein bound of
  sum p_i, for the variance sum p_i (1 - p_i), at false-failure probability 1e-10 per bucket (about 7 sigma when
  the variance is large, and exact-tail-safe when it is small, as for p near 0 or 1).
- Independence: for every lag L up to m/2 over the first m = min(n, 2^21) elements, C_L = sum_i y_i y_{i+L} with
  y_i = out_i - p_i stays within twice a Bernstein bound for half its variance W_L = sum_i v_i v_{i+L},
  v_i = p_i (1 - p_i) (the pairs split into two sets of independent terms), at 1e-9 for all lags together; in
  the logical element order and in the input's memory order. Samples drawn from the same uniform from block to
  block (Philox offsets local to a block) give E[y_i y_{i+L}] = min(p_i, p_j) - p_i p_j > 0, so C_L grows like n
  against a bound like sqrt(n).
So a correct sampler fails a case with probability below 4e-9 (11 x 1e-10 + 1e-9 per element order). Measured on the
CPU interpreter (3 seeds, every smoke and check case, both dtypes): the solution uses at most 0.47 of a bucket bound
and 0.42 of the serial bound. Comparing the wrong way (`u >= p`, rate 1 - p) fails at p = 0 and p = 1 at once (and
in every bucket but the middle one); block-local offsets exceed the serial bound 1.7 times on the smoke case, 2.5 to
4.3 times on the smaller checks and 9 times on check_large, which exists for that margin (the correlation they cause
is weaker than dropout's, since it needs both probabilities away from 0 and 1).

`input_ranges` keeps the probabilities in [0, 1] while the timing stage scales the inputs by factors near 1 before
every timed call (torch.bernoulli asserts on p > 1). Probabilities mix a uniform body (50%), exact 0.5 (20%),
values within 0.01 of 0 and of 1 (10% each), where a rate error is easiest to hide, and exact 0 and 1 (5% each);
layouts are contiguous, transposed and strided.
"""


import torch

from kbx.tasks import inputs, randomness

TASK = {
    "name": "bernoulli",
    "category": "Random",
    "level": 1,
    "signature": "(input, seed=0)",
    "dtypes": ["float32", "float16"],
    "forbidden": ["bernoulli", "rand", "rand_like", "randn", "randn_like", "randint", "randint_like", "uniform",
                  "normal", "random", "randperm", "multinomial", "binomial", "dropout", "manual_seed",
                  "fork_rng", "Generator"],
    "contract": {"kind": "statistical"},
    "input_ranges": {"input": [0.0, 1.0]},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [4096]}},
        {"name": "check_tail", "role": "check", "params": {"shape": [8193]}},
        {"name": "check_2d_t", "role": "check", "params": {"shape": [129, 127], "layout": "transposed"}},
        {"name": "check_3d_strided", "role": "check", "params": {"shape": [3, 33, 65], "layout": "strided"}},
        {"name": "check_large", "role": "check", "params": {"shape": [255, 257]}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 16384]}},
    ],
}


def reference(input, seed=0):
    # torch's own stream, seeded so that the reference is deterministic; candidates need not reproduce it.
    generator = torch.Generator(device=input.device)
    generator.manual_seed(seed)
    return torch.bernoulli(input, generator=generator)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    kind = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    body = inputs.uniform(shape, 0.0, 1.0, "float32", generator)
    edge = inputs.uniform(shape, 0.0, 0.01, "float32", generator)
    prob = torch.where(kind < 0.5, body, torch.zeros_like(body))  # 50%: uniform on [0, 1)
    prob = torch.where((kind >= 0.5) & (kind < 0.7), torch.full_like(body, 0.5), prob)  # 20%: exactly 1/2
    prob = torch.where((kind >= 0.7) & (kind < 0.8), edge, prob)  # 10%: within 0.01 of 0
    prob = torch.where((kind >= 0.8) & (kind < 0.9), 1.0 - edge, prob)  # 10%: within 0.01 of 1
    prob = torch.where(kind >= 0.95, torch.ones_like(body), prob)  # 5%: exactly 1 (and 5%: exactly 0)
    x = prob.to(inputs.torch_dtype(dtype)).clamp(0.0, 1.0)
    seed = int(inputs.randint(0, 2**31 - 1, [1], generator).item())
    return {"input": inputs.layout(x, p.get("layout", "contiguous")), "seed": seed}


# ----- the statistical contract -------------------------------------------------------------------------------

_DELTA = 1e-10
"""False-failure probability allotted to each bucket's bound; the serial test gets 1e-9 over all its lags."""
_EDGES = (0.001, 0.01, 0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 0.99, 0.999)
_PREFIX = 1 << 21
"""Elements (in each order) that the serial-dependence test looks at: lags up to 2^20."""
_CHUNK = 1 << 24


def check_outputs(outputs, inputs, expected, workload, dtype):
    """None when the output looks like independent Bernoulli(input) draws, else why not (module docstring)."""
    out, x = outputs[0], inputs["input"]
    out = out.to(x.device)
    flat_out, flat_p = out.reshape(-1), x.reshape(-1)
    buckets = len(_EDGES) + 1
    edges = torch.tensor(_EDGES, dtype=torch.float64, device=x.device)
    ones, means, variances = (torch.zeros(buckets, dtype=torch.float64, device=x.device) for _ in range(3))
    not_binary = wrong_zero = wrong_one = 0
    for start in range(0, flat_p.numel(), _CHUNK):
        o = flat_out[start:start + _CHUNK].double()
        p = flat_p[start:start + _CHUNK].double()
        not_binary += int(((o != 0) & (o != 1)).sum())
        wrong_zero += int(((p == 0) & (o != 0)).sum())
        wrong_one += int(((p == 1) & (o != 1)).sum())
        inside = (p > 0) & (p < 1)
        bucket = torch.bucketize(p[inside], edges)
        ones += torch.bincount(bucket, weights=o[inside], minlength=buckets)
        means += torch.bincount(bucket, weights=p[inside], minlength=buckets)
        variances += torch.bincount(bucket, weights=(p * (1 - p))[inside], minlength=buckets)
    if not_binary:
        return f"{not_binary} of {flat_p.numel()} outputs are neither 0 nor 1"
    if wrong_zero or wrong_one:
        return f"{wrong_zero} outputs are nonzero where p = 0, {wrong_one} are not 1 where p = 1"
    bounds = (0.0, *_EDGES, 1.0)
    for k in range(buckets):
        slack = randomness.bernstein(float(variances[k]), 1.0, _DELTA)
        if abs(float(ones[k] - means[k])) > slack:
            return (f"{float(ones[k]):.0f} ones where {bounds[k]} < p < {bounds[k + 1]}, expected "
                    f"{float(means[k]):.1f} +- {slack:.1f} ({abs(float(ones[k] - means[k])) / slack:.1f}x the bound)")
    for order, (o, p) in randomness.orders(x, out, x, prefix=_PREFIX):
        p = p.double()
        why = randomness.serial_dependence(o.double() - p, p * (1 - p), 1.0, prefix=_PREFIX, delta=_DELTA)
        if why:
            return f"the samples are serially dependent ({order} order): {why}"
    return None
