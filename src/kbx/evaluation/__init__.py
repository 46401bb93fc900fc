"""Evaluation, laid out by trust domain (DESIGN §4; docs/architecture.md draws it):

- `orchestrator/`: runs in the CLI's process, never imports candidate code, torch or CUDA. The `Evaluator`
  (`pipeline`), the candidate worker's process and deadline (`sandbox`), the channel's protocol (`conversation`),
  the performance stage, the GPU gate, the rule on torch's work, and the handle on the trusted worker.
- `trusted/`: the trusted worker's process: inputs, reference outputs (which never leave it), judging (`compare`),
  baselines and device peaks.
- `candidate/`: runs inside the candidate's confinement, beside the code it watches, so everything there is a
  warning, never a boundary: the worker loop, the audit hook, the runtime guards, the launch and dispatch
  recorders, the interpreter's shims.
- `confinement/`: the boundary itself, set up by trusted code in the candidate's process before the candidate is
  imported (namespaces, filesystem view, UID, seccomp), and the orchestrator's probe of it.
- Shared values, imported on every side: `protocol` (what crosses the channel), `cases`, `result`, `verdict`,
  `outputs` (packing of tensors), `bench_inputs`, `environment`; and `kbx.kernelbench_rule` (KernelBench's own
  rule, judged beside kbx's verdict with `--contract kernelbench`), a leaf the analysis and the report read too.

The static stage is `kbx.candidates.static`, run by the orchestrator before any process starts.
`Evaluator` and `Limits` are importable from here.
"""

from __future__ import annotations

from typing import Any

__all__ = ["Evaluator", "Limits"]


def __getattr__(name: str) -> Any:
    # Lazily, so that a candidate worker importing `kbx.evaluation.candidate` does not load the orchestrator.
    if name == "Evaluator":
        from kbx.evaluation.orchestrator.pipeline import Evaluator

        return Evaluator
    if name == "Limits":
        from kbx.evaluation.orchestrator.sandbox import Limits

        return Limits
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
