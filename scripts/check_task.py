"""Authoring aid: check one task folder in-process on the CPU interpreter (trusted code only).

    TRITON_INTERPRET=1 python scripts/check_task.py src/kbx/suite/Activation/gelu

Loads the task, checks the reference is deterministic, runs solution.py and every wrong/*.py on the smoke and
check workloads for every dtype and two seeds, and prints one line per candidate, marked BAD unless it got the
status the suite expects of it (PASSED, or the wrong file's EXPECT; PASSED for a GPU-only one,
`DEVICE = "cuda"`, which the interpreter runs correctly). This is a quick loop for
people writing tasks; verdicts that count come from the isolated pipeline (`kbx eval`).
"""

from __future__ import annotations

import importlib.util
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("TRITON_INTERPRET", "1")

import torch  # noqa: E402

from kbx.evaluation.candidate.interpreter import install_interpreter_shims  # noqa: E402
from kbx.evaluation.trusted.bases import truth_bases  # noqa: E402
from kbx.evaluation.trusted.compare import judge  # noqa: E402
from kbx.tasks.meta import read_task  # noqa: E402
from kbx.tasks.module import import_task  # noqa: E402
from kbx.tasks.suite_check import expected_status, required_device  # noqa: E402


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(f"_cand_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)


def _outputs(value):
    return list(value) if isinstance(value, (tuple, list)) else [value]


def main(folder: str) -> int:
    install_interpreter_shims()
    task = read_task(Path(folder))
    code = import_task(task)
    cases = [(w, d, s) for w in task.workloads_for(("smoke", "check")) for d in task.dtypes for s in (0, 1)]
    for w, d, s in cases:
        a = code.reference(**code.make_inputs(w, d, torch.Generator().manual_seed(s)))
        b = code.reference(**code.make_inputs(w, d, torch.Generator().manual_seed(s)))
        for x, y in zip(_outputs(a), _outputs(b)):
            assert torch.equal(x, y) or torch.allclose(x, y, equal_nan=True, rtol=0, atol=0), (w.name, d)
    candidates = [task.solution_file, *task.honest_files(), *task.wrong_files()]
    failed = False
    for path in candidates:
        if path.parent.name == "honest" and required_device(path) == "cuda":
            print(f"--  {path.name:30s} skipped: a CUDA kernel, run by scripts/verify_tasks.py --device cuda")
            continue
        start = time.time()
        verdict, worst = "PASSED", ""
        try:
            fn = _load(path, task.name)
            for w, d, s in cases:
                inputs = code.make_inputs(w, d, torch.Generator().manual_seed(s))
                fresh = code.make_inputs(w, d, torch.Generator().manual_seed(s))
                ref = _outputs(code.reference(**fresh))
                truth = task.contract.against_truth
                bases = truth_bases(code.reference, fresh, ref, d, task.contract, w) if truth else None
                for c in judge(fn(**inputs), ref, fresh, code, task.contract, d, w, bases):
                    if c.status.value != "PASSED":
                        verdict, worst = c.status.value, f"{w.name}/{d}/seed{s}: {c.message[:200]}"
                        break
                    if c.max_abs_error is not None:
                        worst = f"max abs {c.max_abs_error:.3g} rel {c.max_rel_error:.3g}" + (
                            f" rel_rmse {c.rel_rmse:.3g}" if c.rel_rmse is not None else "")
                if verdict != "PASSED":
                    break
        except Exception as exc:  # an authoring aid: show the error, keep going
            verdict, worst = "RUNTIME_ERROR", f"{type(exc).__name__}: {str(exc)[:300]}"
        # A GPU-only mistake (`DEVICE = "cuda"`) must pass here: that is what makes it GPU-only.
        expected = "PASSED" if required_device(path) == "cuda" else expected_status(path)
        ok = verdict in expected.split(" | ")
        failed |= not ok
        took = time.time() - start
        print(f"{'ok ' if ok else 'BAD'} {path.name:32s} {verdict:12s} ({expected}; {took:.1f}s) {worst}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
