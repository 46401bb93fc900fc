"""Dynamic per-token (per-row) symmetric int8 quantization: one absmax scale per row of the last dim.

For `input` of shape (..., K), every row r (all leading indices) is quantized with its own scale:

    amax[r]  = max_k |fp32(input[r, k])|                      exact, whatever the reduction order
    scale[r] = amax[r] / 127                                  fp32; a row of zeros gets scale[r] = 1
    q[r, k]  = clamp(round_half_to_even(fp32(input[r, k]) / scale[r]), -127, 127)           as int8

Returns `(q, scale)`: q int8 of the input's shape, scale fp32 of shape (..., 1). This is the activation side of
W8A8 inference (dynamic per-token quantization, as in SmoothQuant-style int8 linear layers); symmetric, no zero
point, -128 unused. Inputs are fp32, fp16 or bf16; the division is done in fp32.

Contract: q is compared exactly (it is an integer output); the fp32 scales with atol 0 and rtol two fp32 ulps
(2.4e-7; one ulp of the task dtype for fp16 and bf16, the smallest rtol a contract may state), so a scale
computed as amax * fl(1/127) instead of amax / 127 (at most one ulp away) also passes. The inputs make q exact
for every faithful way of computing it:
- amax is exact (max is order-independent), so the scale differs by at most an ulp between implementations.
- In ordinary rows no element has x / scale within 1e-3 of a half-integer (such elements are set to 0 when
  the inputs are made, which never changes a row's maximum); |x / scale| <= 127, so an error of a few ulps in
  the scale or the division (~1e-5) never changes a rounding. x / scale, x * (127 / amax) and x * (1 / scale)
  all give the same q.
- In tie rows (one in four rows of the `ties` workloads) the maximum is +-127 * 2^e, so the scale is exactly
  2^e (both amax / 127 and amax * fl(1/127) give it exactly), and about half of the other elements are exact
  ties (n + 1/2) * 2^e: every method of division by 2^e is exact there, so the ties are real and must go to the
  even neighbour.
Rows have scales spread over 2^-6 .. 2^6, one element in 64 is an outlier of 8x the row's spread (a row's max is
often a lone outlier), the sign of the max varies (max(x) instead of max(|x|) fails), one row is all zeros in
most workloads; inputs come 2-D and 3-D, contiguous, column-major or strided (the 3-D one holds the first 33 rows
of longer sequences, so its leading dims do not merge: a kernel that steps flattened rows by the row stride
passed every other workload), with rows shorter and longer
than one block. In `check_late_peak_long` (rows of 20011, longer than a block of 16384) each row's largest
magnitude sits past element 16384: a kernel that reads only its first blocks, or merges their maxima wrongly,
gets every scale wrong (the solution, whose blocks stop at 8192, passed every other check with its loop cut to
one block).
"""

import torch

from kbx.tasks import inputs

TASK = {
    "name": "quantize_per_token_int8",
    "category": "Quantization",
    "level": 1,
    "signature": "(input)",
    "dtypes": ["float32", "float16", "bfloat16"],
    "forbidden": ["quantize_per_tensor", "quantize_per_tensor_dynamic", "quantize_per_channel",
                  "fake_quantize_per_tensor_affine", "fake_quantize_per_channel_affine", "round", "clamp", "clip",
                  "clamp_min", "clamp_max", "hardtanh", "amax", "max", "aminmax", "abs", "absolute", "norm",
                  "vector_norm", "int_repr"],
    "contract": {"kind": "allclose",
                 "tolerance": {"float32": [0.0, 2.4e-7], "float16": [0.0, 0.0009765625],
                               "bfloat16": [0.0, 0.0078125]}},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 100], "ties": True}},
        {"name": "check_ties", "role": "check", "params": {"shape": [127, 129], "ties": True, "zero_row": True}},
        {"name": "check_long_rows", "role": "check", "params": {"shape": [9, 4097], "zero_row": True}},
        {"name": "check_3d", "role": "check", "params": {"shape": [3, 33, 257], "ties": True, "layout": "seq_slice"}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [129, 127], "layout": "transposed", "zero_row": True}},
        {"name": "check_strided", "role": "check", "params": {"shape": [65, 33], "layout": "strided", "ties": True}},
        {"name": "check_late_peak_long", "role": "check", "params": {"shape": [3, 20011], "peak": "late"}},
        {"name": "bench", "role": "bench", "params": {"shape": [32768, 8192]}},
    ],
}


def reference(input):
    x = input.to(torch.float32)
    amax = x.abs().amax(dim=-1, keepdim=True)
    # A tensor divisor, not the scalar 127.0: on CUDA, PyTorch turns division by a scalar into multiplication by
    # its reciprocal, which is not the correctly rounded quotient the definition asks for.
    scale = amax / torch.full_like(amax, 127.0)
    scale = torch.where(amax == 0, torch.ones_like(scale), scale)
    q = torch.clamp(torch.round(x / scale), -127, 127).to(torch.int8)
    return q, scale


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    rows, K = 1, shape[-1]
    for size in shape[:-1]:
        rows *= size
    # Ordinary rows: N(0, 1) times a row scale in 2^-6 .. 2^6, with +-8 outliers, rounded to the task dtype.
    spread = torch.exp2(inputs.uniform([rows, 1], -6.0, 6.0, "float32", generator))
    x = inputs.with_outliers(inputs.randn([rows, K], "float32", generator), generator, fraction=1 / 64,
                             magnitude=8.0)
    if p.get("peak") == "late":  # each row's largest magnitude past the largest power of two below K
        x = inputs.late_extremum(x, [-1], generator, magnitude=True)
    x = x * spread
    x = x.to(inputs.torch_dtype(dtype)).to(torch.float32)
    # No element within 1e-3 of a rounding boundary (its row's maximum is never one: it sits at 127).
    amax = x.abs().amax(dim=1, keepdim=True).double()
    y = x.double() / (amax / 127.0)
    x = x.masked_fill(((y.abs() - y.abs().floor()) - 0.5).abs() < 1e-3, 0.0)
    if p.get("ties", False):
        # Tie rows: maximum +-127 * 2^e at one position, half of the rest exact ties (n + 1/2) * 2^e.
        tie = torch.arange(rows, device=x.device) % 4 == 1
        step = torch.exp2(inputs.randint(-8, 3, [rows, 1], generator).to(torch.float32))
        halves = inputs.randint(-127, 127, [rows, K], generator).to(torch.float32) + 0.5
        whole = inputs.randint(-126, 127, [rows, K], generator).to(torch.float32)
        y = torch.where(inputs.uniform([rows, K], 0.0, 1.0, "float32", generator) < 0.5, halves, whole)
        at = inputs.randint(0, K, [rows, 1], generator)
        sign = torch.where(inputs.uniform([rows, 1], 0.0, 1.0, "float32", generator) < 0.5, -127.0, 127.0)
        y = y.scatter(1, at, sign)
        x = torch.where(tie[:, None], y * step, x)
    if p.get("zero_row", False):
        x[rows // 2] = 0.0
    x = x.to(inputs.torch_dtype(dtype)).reshape(shape)
    return {"input": inputs.layout(x, p.get("layout", "contiguous"))}
