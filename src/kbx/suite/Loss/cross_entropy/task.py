"""Cross-entropy loss with class-index targets and mean reduction.

    loss_i = logsumexp_c(x[i, c]) - x[i, target[i]]          (i runs over every sample position)
    cross_entropy(x, target) = mean_i loss_i

Mirrors `torch.nn.functional.cross_entropy(input, target)` (reduction='mean', no weights, no label
smoothing). `input` holds logits of shape (N, C) or (N, C, d1), the class dimension being dim 1 as in
PyTorch; `target` is int64 of shape (N,) or (N, d1) with every entry in [0, C) (ignore_index never occurs).
The mean runs over all N (* d1) positions. The output is a 0-d tensor in the input's dtype; bf16 logits are
computed in fp32.

Logits have a per-sample offset uniform in [-1000, 1000] (a log-sum-exp without max subtraction overflows to
inf or underflows to log 0) and a spread of several units. Class counts straddle block sizes (10, 100, 129,
1000, 4097, 5000, 40000) up to vocabulary-sized benches (32000 and 128256 classes); the (N, C, d1) workloads need
the class dimension read with a stride; one input is transposed (non-contiguous).
"""

import torch.nn.functional as F

from kbx.tasks import inputs

TASK = {
    "name": "cross_entropy",
    "category": "Loss",
    "level": 1,
    "signature": "(input, target)",
    "dtypes": ["float32", "bfloat16"],
    "forbidden": ["cross_entropy", "CrossEntropyLoss", "nll_loss", "log_softmax", "softmax", "logsumexp", "exp",
                  "log"],
    "contract": {"kind": "allclose"},
    "perturb": "shape",
    "workloads": [
        {"name": "smoke", "role": "smoke", "params": {"shape": [16, 100], "offset": 1000.0, "scale": 4.0}},
        {"name": "smoke_3d", "role": "smoke", "params": {"shape": [4, 10, 7], "offset": 0.0, "scale": 2.0}},
        {"name": "check_1000", "role": "check", "params": {"shape": [65, 1000], "offset": 1000.0, "scale": 4.0}},
        {"name": "check_4097", "role": "check", "params": {"shape": [17, 4097], "offset": 1000.0, "scale": 8.0}},
        {"name": "check_long_rows", "role": "check",
         "params": {"shape": [5, 40000], "offset": 1000.0, "scale": 4.0}},
        {"name": "check_3d", "role": "check", "params": {"shape": [3, 129, 37], "offset": 1000.0, "scale": 4.0}},
        {"name": "check_3d_many_classes", "role": "check",
         "params": {"shape": [2, 5000, 9], "offset": 1000.0, "scale": 4.0}},
        {"name": "check_transposed", "role": "check",
         "params": {"shape": [127, 129], "offset": 0.0, "scale": 4.0, "layout": "transposed"}},
        {"name": "bench_vocab_128k", "role": "bench", "params": {"shape": [8192, 128256], "offset": 0.0,
                                                                  "scale": 4.0}},
        {"name": "bench_vocab_32k", "role": "bench", "params": {"shape": [16384, 32000], "offset": 0.0,
                                                                 "scale": 4.0}},
        {"name": "bench_3d", "role": "bench", "params": {"shape": [8, 150, 262144], "offset": 0.0, "scale": 4.0}},
    ],
}


def reference(input, target):
    return F.cross_entropy(input, target)


def make_inputs(workload, dtype, generator):
    p = workload.params
    shape = p["shape"]
    sample_shape = [shape[0], 1, *shape[2:]]  # one offset per sample position, shared by its classes
    x = inputs.randn(shape, "float32", generator, scale=p["scale"])
    if p["offset"]:
        x += inputs.uniform(sample_shape, -p["offset"], p["offset"], "float32", generator)
    x = inputs.layout(x.to(inputs.torch_dtype(dtype)), p.get("layout", "contiguous"))
    target = inputs.randint(0, shape[1], [shape[0], *shape[2:]], generator)
    return {"input": x, "target": target}
