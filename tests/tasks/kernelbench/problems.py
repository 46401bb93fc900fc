"""Small KernelBench-format problems written for these tests, and a helper to lay them out as a checkout does."""

from __future__ import annotations

from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "kernelbench"
"""A problem folder in KernelBench's layout (level1/, level2/, level3/) and ModelNew candidates for it."""

SCALE = '''
import torch
import torch.nn as nn


class Model(nn.Module):
    """Multiplies by a constant."""

    def __init__(self, factor):
        super().__init__()
        self.factor = factor

    def forward(self, x):
        return x * self.factor


batch_size = 256
dim = 1000
factor = 3.0


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return [factor]
'''


def write(root: Path, name: str, source: str) -> Path:
    """Write `source` as the problem `name` (`level1/7_Foo`) under `root`; returns its path."""
    path = root / f"{name}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(source.lstrip())
    return path
