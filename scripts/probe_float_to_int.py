"""What Triton's float -> integer conversions give for values outside the integer's range, and for NaN and inf.

    PYTHONPATH=src python3 scripts/probe_float_to_int.py                 # on a GPU
    TRITON_INTERPRET=1 PYTHONPATH=src python3 scripts/probe_float_to_int.py --shims   # the CPU interpreter, with
                                                                                     # kbx's shims installed

Prints one line per (source dtype, destination dtype): the converted values of the same probe inputs, so the two
runs can be compared line by line. The interpreter converts with numpy's `astype`, whose result outside the
range is undefined in C; a GPU's `cvt.rzi` saturates. Imports torch, triton and kbx only.
"""

from __future__ import annotations

import argparse
import os

import torch
import triton
import triton.language as tl

VALUES = [-1e30, -3e9, -70000.0, -300.0, -128.5, -1.5, -0.5, 0.5, 1.5, 127.5, 200.0, 300.0, 70000.0, 3e9, 5e9,
          1e30, float("nan"), float("inf"), float("-inf")]


@triton.jit
def _convert(x_ptr, y_ptr, n, DST: tl.constexpr, BLOCK: tl.constexpr):
    offsets = tl.arange(0, BLOCK)
    mask = offsets < n
    x = tl.load(x_ptr + offsets, mask=mask)
    tl.store(y_ptr + offsets, x.to(DST), mask=mask)


DESTINATIONS = {"int8": (tl.int8, torch.int8), "int16": (tl.int16, torch.int16), "int32": (tl.int32, torch.int32),
                "int64": (tl.int64, torch.int64), "uint8": (tl.uint8, torch.uint8)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--shims", action="store_true", help="install kbx's interpreter shims first")
    args = parser.parse_args()
    if args.shims:
        from kbx.evaluation.candidate.interpreter import install_interpreter_shims

        install_interpreter_shims()
    device = "cpu" if os.environ.get("TRITON_INTERPRET") == "1" else "cuda"
    print(f"# {device}; values: {VALUES}")
    for source in (torch.float32, torch.float16, torch.bfloat16, torch.float64):
        x = torch.tensor(VALUES, dtype=torch.float64).to(source).to(device)
        for name, (dst, torch_dst) in DESTINATIONS.items():
            y = torch.empty(len(VALUES), dtype=torch_dst, device=device)
            _convert[(1,)](x, y, len(VALUES), DST=dst, BLOCK=32)
            print(f"{str(source).removeprefix('torch.'):9s} -> {name:6s} {y.tolist()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
