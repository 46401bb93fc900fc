"""searchsorted: for each value, the index at which it would be inserted into a sorted sequence.

    right=False:  out = the first i with sorted_sequence[i] >= value   (sequence[i-1] <  value <= sequence[i])
    right=True:   out = the first i with sorted_sequence[i] >  value   (sequence[i-1] <= value <  sequence[i])

(i = L, the sequence length, when there is no such element.) Mirrors
`torch.searchsorted(sorted_sequence, input, right=right)` (out_int32=False, no sorter). `sorted_sequence` is
either 1-D, searched by every value of `input` (any shape), or has input's leading dims and is searched row by
row along its last dim. The output has input's shape and is int64; the contract is exact.

Values lie on a 0.25 lattice (exact in every dtype), so the sequences have long runs of equal elements and
many inputs equal a sequence element exactly: left and right insertion points differ there, by the run length.
Inputs also fall below the first and above the last element (outputs 0 and L). Workloads: 1-D sequences of
lengths 1, 127, 129 and 4097 with 1-D, 2-D and 3-D inputs, batched 2-D and 3-D sequences, both sides, a
transposed input and a strided sequence. Benches: 64M queries against one 1M-element sequence (bucketize), and
4096 rows of 4096 queries against 4096-element sequences.
"""

import torch

from kbx.tasks import inputs, sizes

TASK = {
    "name": "searchsorted",
    "category": "Index",
    "level": 1,
    "signature": "(sorted_sequence, input, right=False)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["searchsorted", "bucketize", "histc", "histogram", "sort", "argsort", "msort", "topk", "kthvalue",
                  "lt", "le", "gt", "ge", "less", "less_equal", "greater", "greater_equal", "sum", "count_nonzero",
                  "cumsum", "argmax", "argmin", "digitize"],
    "contract": {"kind": "exact"},
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"seq": [20], "input": [30], "right": False}},
        {"name": "smoke_right_2d", "role": "smoke", "params": {"seq": [4, 17], "input": [4, 9], "right": True}},
        {"name": "check_127_left", "role": "check", "params": {"seq": [127], "input": [33, 31], "right": False}},
        {"name": "check_129_right", "role": "check", "params": {"seq": [129], "input": [5, 7, 29], "right": True}},
        {"name": "check_long_seq", "role": "check", "params": {"seq": [4097], "input": [1000], "right": False}},
        {"name": "check_len1", "role": "check", "params": {"seq": [1], "input": [257], "right": True}},
        {"name": "check_batched_left", "role": "check",
         "params": {"seq": [33, 65], "input": [33, 129], "right": False}},
        {"name": "check_batched_3d_right", "role": "check",
         "params": {"seq": [3, 5, 40], "input": [3, 5, 63], "right": True}},
        {"name": "check_input_transposed", "role": "check",
         "params": {"seq": [65], "input": [31, 45], "right": False, "layout": "transposed"}},
        {"name": "check_seq_strided_right", "role": "check",
         "params": {"seq": [9, 100], "input": [9, 37], "right": True, "seq_layout": "strided"}},
        {"name": "bench_bucketize", "role": "bench",
         "params": {"seq": [1048576], "input": [8192, 8192], "right": False, "span": 4096.0}},
        {"name": "bench_batched", "role": "bench", "params": {"seq": [4096, 4096], "input": [4096, 4096],
                                                              "right": True}},
    ],
}


def reference(sorted_sequence, input, right=False):
    return torch.searchsorted(sorted_sequence, input, right=right)


def make_inputs(workload, dtype, generator):
    p = workload.params
    # A 0.25 lattice in [-span, span]: exact in fp32 and bf16 for the default span 30 (bf16 has 8 significant
    # bits); the bucketize bench spans more and relies on fp32 only for exactness of its own values.
    span = p.get("span", 30.0)
    steps = int(span * 4)
    seq = inputs.randint(-steps, steps + 1, p["seq"], generator).float() / 4
    seq = torch.sort(seq, dim=-1).values
    # Half the queries hit sequence values exactly (ties), the rest fall anywhere, including outside the range.
    lattice = inputs.randint(-steps - 8, steps + 9, p["input"], generator).float() / 4
    pick = inputs.randint(0, seq.shape[-1], p["input"], generator)
    hits = seq[pick] if seq.dim() == 1 else torch.gather(seq, -1, pick)
    coin = inputs.uniform(p["input"], 0, 1, "float32", generator) < 0.5
    values = torch.where(coin, hits, lattice)
    dt = inputs.torch_dtype(dtype)
    return {
        "sorted_sequence": inputs.layout(seq.to(dt), p.get("seq_layout", "contiguous")),
        "input": inputs.layout(values.to(dt), p.get("layout", "contiguous")),
        "right": p["right"],
    }


def perturb(workload, rng):
    # Odd sizes near the published ones (never more elements); batch dims move together in sequence and input,
    # a sequence of length 1 stays 1. side and layouts stay.
    p = workload.params
    seq, inp = p["seq"], p["input"]
    nb = len(seq) - 1
    batch = sizes.shape_near(rng, seq[:nb]) if nb else []
    seq_len = sizes.odd_near(rng, seq[-1], high=1.0) if seq[-1] > 1 else 1
    rest = sizes.shape_near(rng, inp[nb:])
    return {**p, "seq": [*batch, seq_len], "input": [*batch, *rest]}
