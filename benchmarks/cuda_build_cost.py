"""What a CUDA candidate costs to evaluate: the build of its extensions, the same build served from the cache, and
(on a GPU) the run (issue 23: "cost per CUDA evaluation (compile, cached compile, run)").

Each fixture of tests/fixtures/cuda/ named on the command line (default: relu_raw, relu) is evaluated twice on the
`relu` task with a fresh cache of builds: the first evaluation builds, the second finds the build in the cache.
One JSON line per evaluation: the wall time, the `build` phase and the rest of the evaluation's phases. On a CPU
host a candidate that compiles is not judged (its kernels need a GPU), so only the build is measured there.

    PYTHONPATH=src python3 benchmarks/cuda_build_cost.py [--device cuda] [relu_raw relu ...]

Measured so far (two shared CPU cores, nvcc 13.0, torch 2.13 CPU wheel, objects only, in the confinement):
relu_raw 10-23 s to build (as the cores are shared), 0.01 s from the cache; relu (`torch/extension.h` in both
sources) 239 s. On a 32-core GPU host (2 x H200, 2026-11-27): relu_raw 7.6 s, relu 66 s, each evaluation from the
cache 2.0 s (docs/evaluation.md).
"""

from __future__ import annotations

import argparse
import json
import platform
import tempfile
import time
from pathlib import Path

from kbx.candidates.source import Candidate
from kbx.errors import NeedsGpu
from kbx.evaluation.orchestrator.extensions import ExtensionCache
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import default_suite_root, load_suite

FIXTURES = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "cuda"


def _measure(evaluator: Evaluator, task, name: str, attempt: int) -> dict:
    code = (FIXTURES / f"{name}.py").read_text()
    start = time.monotonic()
    row = {"fixture": name, "attempt": attempt, "device": evaluator.device}
    try:
        evaluation = evaluator.evaluate(task, Candidate(name, "relu", code))
    except NeedsGpu as exc:
        row.update(status="NOT JUDGED", note=str(exc)[:160])
    else:
        row.update(status=evaluation.status.value, phases={k: round(v, 3) for k, v in evaluation.phases.items()})
    row["wall_s"] = round(time.monotonic() - start, 3)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("fixtures", nargs="*", default=["relu_raw", "relu"])
    parser.add_argument("--device", default="auto")
    args = parser.parse_args()
    task = {t.name: t for t in load_suite(default_suite_root())}["relu"]
    print(f"# {platform.node()} {platform.machine()} python {platform.python_version()}")
    with Evaluator(args.device, Limits(timeout_s=600, compile_timeout_s=1200), timing=None) as evaluator:
        evaluator.extensions.cache = ExtensionCache(Path(tempfile.mkdtemp(prefix="kbx-build-cost-")))
        for name in args.fixtures:
            for attempt in (1, 2):
                print(json.dumps(_measure(evaluator, task, name, attempt)), flush=True)


if __name__ == "__main__":
    main()
