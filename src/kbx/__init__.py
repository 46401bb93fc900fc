"""kbx: a benchmark and evaluation harness for GPU kernels written by language models."""

__version__ = "0.1.0"
