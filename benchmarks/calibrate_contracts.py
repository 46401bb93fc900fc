"""Measure honest kernels against the float64 truth, to choose and check the constants of `kbx.tasks.accuracy`.

    TRITON_INTERPRET=1 PYTHONPATH=src python3 benchmarks/calibrate_contracts.py [--roles check] [--seeds 5] \
        [--first-seed 1] [--perturbed]
    PYTHONPATH=src python3 benchmarks/calibrate_contracts.py --device cuda --roles bench [--compiled]

For every allclose task judged against the float64 truth, every workload of the roles asked for, every dtype and
seed, it runs the task's solution (and with --compiled, `torch.compile(reference)`, a second honest kernel that
fuses and keeps float32 intermediates; with --variants, the task's textbook formulas in float32,
`benchmarks/textbook_variants.py`), the eager reference and its float64 truth, and reports per task, dtype,
workload and output, the worst over the seeds of:
- `ratio`: the candidate's normwise error against the truth over the eager reference's (inf where eager is exact);
- `eager_u`, `cand_u`: the two normwise errors ||x - truth|| / ||truth|| in units of the output dtype's u;
- `norm_need`: the normwise floor's `a + b sqrt(n)` this candidate needs, in units of u_acc, given k;
- `elem_need`: each element's `A + B sqrt(n)` it needs, in units of u_acc, given the ulps and K s E terms;
- `bound`: the worst element's error in units of its bound under the current rule (below 1 passes).
Rows whose candidate fails the rule are marked FAIL; the last lines give the worst of each column. Only torch,
triton, numpy, the standard library and kbx (from the source tree) are imported. It runs solutions in-process:
it is trusted code for the suite's own kernels, not for candidates.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

from kbx.evaluation.cases import PERTURBED_ROLE
from kbx.evaluation.trusted.against_truth import (
    CHUNK,
    Basis,
    element_bound,
    envelope_scale,
    judge_output,
    normwise_error,
)
from kbx.evaluation.trusted.bases import truth_bases
from kbx.tasks.accuracy import RULE, Allowance, Rule
from kbx.tasks.inputs import dtype_name
from kbx.tasks.module import TaskCode, import_task
from kbx.tasks.registry import load_suite, select
from kbx.tasks.sizes import perturbed
from kbx.tasks.spec import Task, Workload


def _outputs(value: Any) -> list[Any]:
    return list(value) if isinstance(value, (tuple, list)) else [value]


def load_solution(task: Task, path: Path | None = None) -> Any:
    """The entry point of the task's solution (or of the candidate file `path`), imported in this process."""
    path = task.solution_file if path is None else path
    spec = importlib.util.spec_from_file_location(f"_kbx_{task.name}_{path.parent.name}_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, task.name)


def needs(out: torch.Tensor, base: Basis, allowance: Allowance) -> dict[str, float]:
    """The normwise and per-element allowances `out` needs, in units of u_acc (see the module docstring)."""
    assert base.truth is not None and base.envelope is not None
    rest = dataclasses.replace(allowance, rule=dataclasses.replace(allowance.rule, element_arithmetic=0.0,
                                                                   element_accumulation=0.0))
    element = 0.0
    sq = 0.0
    scale = envelope_scale(normwise_error(out, base), base, allowance.rule)
    flat_o, flat_t, flat_e = out.reshape(-1), base.truth.reshape(-1), base.eager.reshape(-1)
    flat_p = base.backward.reshape(-1) if base.backward is not None else None
    for start in range(0, flat_t.numel(), CHUNK):
        o, t, e = (x[start : start + CHUNK].double() for x in (flat_o, flat_t, flat_e))
        backward = flat_p[start : start + CHUNK] if flat_p is not None else None
        judged = torch.isfinite(o) & torch.isfinite(t) & torch.isfinite(e)
        magnitude = t.abs().nan_to_num(0.0, 0.0, 0.0)
        excess = (o - t).abs() - element_bound(magnitude, base.envelope, rest, scale, backward)
        excess = excess.masked_fill(~judged, 0.0).clamp_min(0.0)
        if bool((excess > 0).any()):
            element = max(element, float((excess / (allowance.accumulation * t.abs())).max()))
        sq += float((o - t).masked_fill(~judged, 0.0).square().sum())
    norm = max(base.norm, 1e-300)
    floor = math.sqrt(sq) - allowance.rule.norm_factor * base.eager_error - allowance.unit_roundoff * base.norm
    return {"norm_need": max(floor, 0.0) / (allowance.accumulation * norm), "elem_need": element,
            "cand_u": math.sqrt(sq) / norm / allowance.unit_roundoff,
            "eager_u": base.eager_error / norm / allowance.unit_roundoff}


def measure(code: TaskCode, candidates: dict[str, Any], workload: Workload, dtype: str, seed: int,
            device: str, rule: Rule) -> list[dict[str, Any]]:
    """One case: every candidate's numbers for every floating-point output."""
    generator = torch.Generator(device=device).manual_seed(seed)
    inputs = code.make_inputs(workload, dtype, generator)
    with torch.no_grad():
        eager = _outputs(code.reference(**inputs))
    bases = truth_bases(code.reference, inputs, eager, dtype, code.task.contract, workload, rule)
    rows = []
    for name, fn in candidates.items():
        with torch.no_grad():
            got = _outputs(fn(**inputs))
        for index, (out, base) in enumerate(zip(got, bases)):
            if not base.eager.is_floating_point():
                continue
            allowance = dataclasses.replace(code.task.contract.allowance(dtype_name(base.eager.dtype), workload),
                                            rule=rule)
            verdict = judge_output(out.to(base.eager.device), base, allowance)
            ratio = (verdict.truth_error or 0.0) / verdict.eager_error if verdict.eager_error else math.inf
            rows.append({"task": code.task.name, "candidate": name, "dtype": dtype, "workload": workload.name,
                         "output": index, "seed": seed, "status": verdict.status.value,
                         "ratio": ratio if (verdict.truth_error or verdict.eager_error) else 0.0,
                         "bound": verdict.bound_ratio, "elements": out.numel(), "n": allowance.length,
                         **needs(out.to(base.eager.device), base, allowance)})
    return rows


def worst(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The rows of one (task, candidate, dtype, workload, output) folded over seeds: the worst of each number."""
    first = dict(rows[0])
    for key in ("ratio", "bound", "norm_need", "elem_need", "cand_u", "eager_u"):
        first[key] = max(r[key] for r in rows)
    first["status"] = next((r["status"] for r in rows if r["status"] != "PASSED"), "PASSED")
    first["seeds"] = len(rows)
    return first


def row_line(r: dict[str, Any]) -> str:
    mark = "    " if r["status"] == "PASSED" else "FAIL"
    return (f"{mark} {r['task']:28s} {r['candidate']:14s} {r['dtype']:8s} {r['workload']:26s} {r['output']} "
            f"n={r['n']:<7g} ratio={r['ratio']:<8.3g} eager_u={r['eager_u']:<8.3g} cand_u={r['cand_u']:<8.3g} "
            f"norm_need={r['norm_need']:<8.3g} elem_need={r['elem_need']:<8.3g} bound={r['bound']:.3g}")


def run_task(task: Task, args: argparse.Namespace, sink: Any) -> list[dict[str, Any]]:
    """Every case of one task; the folded rows."""
    code = import_task(task)
    candidates = {"solution": load_solution(task)}
    if args.compiled:
        candidates["compiled"] = torch.compile(code.reference)
    if args.variants:
        from textbook_variants import VARIANTS  # benchmarks/, this script's folder

        candidates.update(VARIANTS.get(task.name, {}))
    folded = []
    for sized in workload_sizes(task, args):
        for dtype in task.dtypes:
            start = time.perf_counter()
            rows = [r for seed in range(args.first_seed, args.first_seed + args.seeds)
                    for r in measure(code, candidates, sized(seed), dtype, seed, args.device, args.rule)]
            for r in rows:
                sink.write(json.dumps(r) + "\n")
            keys = sorted({(r["candidate"], r["output"]) for r in rows})
            for key in keys:
                folded.append(worst([r for r in rows if (r["candidate"], r["output"]) == key]))
                print(row_line(folded[-1]) + f" ({time.perf_counter() - start:.1f}s)", flush=True)
    return folded


def workload_sizes(task: Task, args: argparse.Namespace) -> list[Callable[[int], Workload]]:
    """Each workload of the roles asked for as a function of the seed: as published, and with --perturbed, each
    check workload's perturbed copy once more (its sizes drawn from the seed, as a run draws them from its secret
    seed)."""
    chosen = task.workloads_for(tuple(args.roles))
    sized: list[Callable[[int], Workload]] = [lambda seed, w=w: w for w in chosen]
    if args.perturbed and task.perturb_source:
        sized += [lambda seed, w=w: perturbed(task, w, seed) for w in chosen if w.role == PERTURBED_ROLE]
    return sized


def fold(path: Path) -> list[dict[str, Any]]:
    """The rows of a --out file folded over seeds, as a run prints them."""
    rows: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for line in path.read_text().splitlines():
        r = json.loads(line)
        rows.setdefault((r["task"], r["candidate"], r["dtype"], r["workload"], r["output"]), []).append(r)
    return [worst(group) for group in rows.values()]


def summary(folded: list[dict[str, Any]]) -> None:
    """The worst of each number over every row, per task dtype and overall, and how many rows fail."""
    print(f"# {len(folded)} rows; {sum(r['status'] != 'PASSED' for r in folded)} fail the rule")
    for dtype in sorted({r["dtype"] for r in folded}) + ["all"]:
        rows = [r for r in folded if dtype in ("all", r["dtype"])]
        parts = []
        for key in ("ratio", "bound", "norm_need", "elem_need"):
            finite = [r for r in rows if math.isfinite(r[key])]
            if finite:
                top = max(finite, key=lambda r: r[key])
                parts.append(f"{key} {top[key]:.3g} ({top['task']} {top['workload']})")
        print(f"# {dtype:8s} {len(rows):5d} rows, worst: " + "; ".join(parts))
        for key in ("ratio", "bound"):
            values = sorted(r[key] for r in rows if math.isfinite(r[key]))
            if values:
                pick = [values[min(len(values) - 1, int(q * len(values)))] for q in (0.5, 0.9, 0.99)]
                print(f"#          {key} median {pick[0]:.3g}, 90th {pick[1]:.3g}, 99th {pick[2]:.3g}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="cpu", choices=["cpu", "cuda"])
    parser.add_argument("--roles", nargs="+", default=["check"])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--perturbed", action="store_true",
                        help="also each check workload's perturbed copy, its sizes drawn from each seed")
    parser.add_argument("--tasks", nargs="*", default=[])
    parser.add_argument("--compiled", action="store_true", help="also measure torch.compile(reference)")
    parser.add_argument("--variants", action="store_true",
                        help="also measure benchmarks/textbook_variants.py's textbook formulas of the task")
    parser.add_argument("--out", default="calibration.jsonl", help="one JSON line per case and output")
    parser.add_argument("--set", nargs="*", default=[], metavar="NAME=VALUE",
                        help="rule constants other than kbx.tasks.accuracy.RULE's, e.g. element_factor=2")
    parser.add_argument("--summarize", metavar="JSONL", help="only summarise the rows of an earlier run's --out")
    args = parser.parse_args()
    if args.summarize:
        summary(fold(Path(args.summarize)))
        return 0
    args.rule = dataclasses.replace(RULE, **{k: type(getattr(RULE, k))(v) for k, v in
                                             (item.split("=", 1) for item in args.set)})
    if args.device == "cpu":
        os.environ.setdefault("TRITON_INTERPRET", "1")
        from kbx.evaluation.candidate.interpreter import install_interpreter_shims

        install_interpreter_shims()
        torch.set_num_threads(1)
    tasks = [t for t in select(load_suite(), args.tasks) if t.contract.against_truth]
    folded: list[dict[str, Any]] = []
    with Path(args.out).open("w") as sink:
        for task in tasks:
            try:
                folded += run_task(task, args, sink)
            except Exception as exc:  # one task's failure is a row of the report, not the end of the run
                print(f"ERROR {task.name}: {type(exc).__name__}: {str(exc)[:300]}", flush=True)
    summary(folded)
    return 0


if __name__ == "__main__":
    sys.exit(main())
