"""The category of a KernelBench problem: level 1 operators mapped to kbx's fifteen by the words of their file
names, level 2 Fusion, level 3 Architecture (whole networks, which the fifteen do not cover)."""

from __future__ import annotations

import re

from kbx.tasks.spec import ARCHITECTURE

_LEVEL1_RULES: tuple[tuple[str, str], ...] = (
    # first match wins: attention before matmul, losses and norms before the activations their names contain
    (r"attention", "Fusion"),
    (r"loss", "Loss"),
    (r"conv", "Convolution"),
    (r"pool", "Pooling"),
    (r"softmax|norm", "Normalization"),
    (r"cumsum|cumprod|cumulative", "Math"),
    (r"reduction|argmax|argmin", "Reduce"),
    (r"scalar", "Math"),
    (r"matmul|matrix|gemm|\bmm\b|bmm", "MatrixMultiply"),
    (r"relu|sigmoid|tanh|swish|gelu|selu|elu|softplus|softsign|silu|mish", "Activation"),
)
"""(pattern over the lower-cased file stem with `_` read as a space, category) for level 1."""

LEVEL1_FALLBACK = "Math"
"""A level-1 problem whose name matches no rule (a problem of the user's own): elementwise math is the broadest
single-operator category."""

_BY_LEVEL = {2: "Fusion", 3: ARCHITECTURE}


def category_of(level: int, stem: str) -> str:
    """The category of problem `stem` (`19_ReLU`) of `level`."""
    if level in _BY_LEVEL:
        return _BY_LEVEL[level]
    words = stem.lower().replace("_", " ")
    for pattern, category in _LEVEL1_RULES:
        if re.search(pattern, words):
            return category
    return LEVEL1_FALLBACK
