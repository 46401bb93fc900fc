"""Where a correctness evaluation's time goes, case by case, as the orchestrator sees it (exploratory).

    PYTHONPATH=src python3 scripts/probe_case_costs.py --device cuda --tasks relu softmax [--rounds 2]

For every case: inputs (command sent -> `case_start`: the candidate worker making its inputs), call (`case_start` ->
`case_done`: the call, the torch-work recorder, the launch trace, saving the outputs), judge (`case_done` -> the
reply: the trusted worker loading, computing or reusing the reference, comparing). Summed by workload role.
"""

from __future__ import annotations

import argparse
import collections
import time

from kbx.candidates.source import Candidate
from kbx.evaluation.orchestrator import conversation as conv
from kbx.evaluation.orchestrator.pipeline import Evaluator
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.tasks.registry import load_suite, select

LOG: list[tuple[float, str, int | None]] = []


def patch() -> None:
    original = conv.Conversation.on_event

    def on_event(self, event):  # type: ignore[no-untyped-def]
        LOG.append((time.monotonic(), event.name, getattr(event, "index", None)))
        reply = original(self, event)
        LOG.append((time.monotonic(), "reply", self._asked))
        return reply

    conv.Conversation.on_event = on_event


def slow_calls(cases: list, log: list, over_s: float) -> list[str]:
    """The cases whose call+save took longer than `over_s` (on a GPU: mostly a new compilation)."""
    slow, started_at, current = [], None, None
    for at, name, index in log:
        if name == "case_start":
            current = cases[index] if index is not None and index < len(cases) else None
            started_at = at
        elif name == "case_done" and started_at is not None and current is not None and at - started_at > over_s:
            slow.append(f"{at - started_at:6.2f} s  {current.role} {current.workload} {current.dtype}")
    return slow


def summarise(cases: list, log: list) -> dict[str, list[float]]:
    """Seconds by (role, step) over one evaluation's log."""
    by_role: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0])
    sent_at, started_at, done_at, current = None, None, None, None
    for at, name, index in log:
        if name == "reply" and index is not None:
            if done_at is not None and current is not None:
                by_role[current.role][2] += at - done_at
            sent_at, done_at = at, None
        elif name == "case_start":
            current = cases[index] if index is not None and index < len(cases) else None
            started_at = at
            if current is not None and sent_at is not None:
                by_role[current.role][0] += at - sent_at
        elif name == "case_done" and started_at is not None:
            done_at = at
            if current is not None:
                by_role[current.role][1] += at - started_at
                by_role[current.role][3] += 1
    return by_role


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--tasks", nargs="+", default=["relu", "softmax"])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--part", default="all", choices=["all", "correctness"])
    parser.add_argument("--slow", type=float, default=0.0, help="list cases whose call took longer (s); 0: none")
    args = parser.parse_args()
    patch()
    with Evaluator(args.device, Limits(timeout_s=900), timing=None) as evaluator:
        for round_ in range(args.rounds):
            for task in select(load_suite(), args.tasks):
                candidate = Candidate("solution", task.name, (task.path / "solution.py").read_text())
                LOG.clear()
                began = time.monotonic()
                evaluation = evaluator.evaluate(task, candidate, part=args.part)
                total = time.monotonic() - began
                cases, _ = evaluator._plan(task, args.part)  # as the evaluation indexed them
                phases = " ".join(f"{k}={v:.2f}" for k, v in evaluation.phases.items())
                print(f"round {round_} {task.name}: {evaluation.status.value} {total:.2f} s  [{phases}]")
                if evaluation.status.value != "PASSED":
                    print("   ", evaluation.message[:600], "|", (evaluation.worker_output or "")[-600:])
                for role, (inputs, call, judge, n) in summarise(cases, LOG).items():
                    print(f"    {role:6} cases {n:3d}  inputs {inputs:7.2f}  call+save {call:7.2f}  judge {judge:7.2f}")
                if args.slow:
                    for line in slow_calls(cases, LOG, args.slow):
                        print("      slow:", line)


if __name__ == "__main__":
    main()
