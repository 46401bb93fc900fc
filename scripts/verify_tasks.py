"""Run named tasks' solution.py, honest/*.py and wrong/*.py through the isolated pipeline (the verdict that counts)
and print one line per candidate, marked BAD unless it got the status the suite expects of it.

    python scripts/verify_tasks.py gelu softmax            # CPU interpreter: smoke + check (+ perturbed) cases
    python scripts/verify_tasks.py --device cuda matmul    # on a GPU: every workload, timing off
    python scripts/verify_tasks.py --wrong-only all        # only the wrong/ candidates, of every task
    python scripts/verify_tasks.py --device cuda --gpu-only all   # only the GPU-only wrong candidates
    python scripts/verify_tasks.py --device cuda --honest-only all  # only the honest/ candidates

A wrong candidate marked `DEVICE = "cuda"` (a mistake only a GPU exposes) is skipped on the CPU, with a line
saying so; its `EXPECT` may name several statuses (`kbx.tasks.suite_check`).

Also runs `kbx tasks validate` on the same tasks first. Exit status 1 when anything is BAD.
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

from kbx.candidates.source import Candidate
from kbx.errors import KbxError, TaskError
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite, select
from kbx.tasks.suite_check import device_reason, expected_status, got_expected, judged_on, required_device
from kbx.tasks.validate import check_code


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tasks", nargs="+")
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--wrong-only", action="store_true", help="skip the solutions (timed elsewhere)")
    parser.add_argument("--solutions-only", action="store_true", help="skip the wrong candidates")
    parser.add_argument("--gpu-only", action="store_true", help='only the wrong candidates marked DEVICE = "cuda"')
    parser.add_argument("--honest-only", action="store_true", help="only the honest/ candidates (expected to pass)")
    parser.add_argument("--shard", default="0/1", help="K/N: only every N-th task from the K-th (one GPU each)")
    parser.add_argument("--skip-category", nargs="*", default=[], help="leave out the tasks of these categories")
    args = parser.parse_args(argv)
    suite = load_suite()
    tasks = suite if args.tasks == ["all"] else select(suite, args.tasks)
    tasks = [t for t in tasks if t.category not in args.skip_category]
    shard, shards = (int(part) for part in args.shard.split("/"))
    tasks = tasks[shard::shards]
    bad = False
    for task in tasks:
        try:
            check_code(task)
        except TaskError as exc:
            bad = True
            print(f"BAD {task.name}: {exc}")
    pairs = [(t, p) for t in tasks for p in
             [*([] if args.wrong_only else [t.solution_file, *t.honest_files()]),
              *([] if args.solutions_only else t.wrong_files())]]
    if args.gpu_only:
        pairs = [(t, p) for t, p in pairs if required_device(p) == "cuda"]
    if args.honest_only:
        pairs = [(t, p) for t, p in pairs if p.parent.name == "honest"]
    for path in [p for _, p in pairs if not judged_on(p, args.device)]:
        print(f"skip {device_reason(path)}: only --device {required_device(path)} shows its status", flush=True)
    pairs = [(t, p) for t, p in pairs if judged_on(p, args.device)]
    with Evaluator(args.device, Limits(timeout_s=300), timing=None) as evaluator:

        def run(pair):
            task, path = pair
            start = time.monotonic()
            try:
                evaluation = evaluator.evaluate(task, Candidate(str(path), task.name, path.read_text()))
            except KbxError as exc:  # not judged (the reference or the trusted worker failed): a BAD line
                return task, path, exc, time.monotonic() - start
            return task, path, evaluation, time.monotonic() - start

        with ThreadPoolExecutor(max_workers=args.workers) as pool:  # lines in completion order: a killed sweep
            for future in as_completed([pool.submit(run, pair) for pair in pairs]):  # keeps what it finished
                task, path, evaluation, took = future.result()
                label = f"{task.name}/{path.relative_to(task.path).with_suffix('')}"
                if isinstance(evaluation, KbxError):
                    bad = True
                    print(f"BAD {label:48s} NOT JUDGED       ({took:5.1f}s) {type(evaluation).__name__}: "
                          f"{str(evaluation)[:200]}", flush=True)
                    continue
                expected = expected_status(path)
                ok = got_expected(path, evaluation.status.value)
                bad |= not ok
                message = "" if ok and expected == "PASSED" else (evaluation.message or "")[:160]
                print(f"{'ok ' if ok else 'BAD'} {label:48s} {evaluation.status.value:16s} "
                      f"(expected {expected}; {took:5.1f}s) {message}", flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
