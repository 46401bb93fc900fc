"""Every allclose contract checks its outputs (issue 20): on every check workload, an output 50 % off (1.5 or 0.5
times the reference) fails on all but at most 1 % of the elements, unless the task names the workload in
`insensitive` with the reason. References only, on the CPU: no candidate runs. It also proves that every reference
judged against the float64 truth has a float64 path on its check workloads."""

from __future__ import annotations

import pytest

from kbx.evaluation.trusted.sensitivity import unchecked_shares
from kbx.tasks.module import import_task
from kbx.tasks.registry import default_suite_root, load_suite

LIMIT = 0.01
TASKS = [t for t in load_suite(default_suite_root()) if t.contract.kind == "allclose"]


@pytest.mark.parametrize("task", TASKS, ids=lambda t: t.name)
def test_a_50_percent_error_fails_on_all_but_1_percent_of_every_check_output(task):
    code = import_task(task)
    unchecked, largest = [], dict.fromkeys(task.contract.insensitive, 0.0)
    for workload in task.workloads_for(("check",)):
        for dtype in task.dtypes:
            for index, share in enumerate(unchecked_shares(code, workload, dtype)):
                if workload.name in largest:
                    largest[workload.name] = max(largest[workload.name], share)
                elif share > LIMIT:
                    unchecked.append(f"{workload.name}/{dtype} output {index}: {share:.1%}")
    assert not unchecked, f"a 50 % error passes on more than {LIMIT:.0%} of: {'; '.join(unchecked)}"
    # An exemption that no longer covers anything is stale. Near the limit the share moves with the CPU's vectorised
    # math (gelu's check_tail: over 1 % on one machine, 0.78 % on an AVX2 one, 2026-11-29), so only an exempt
    # workload checked well within it counts as stale.
    stale = sorted(name for name, share in largest.items() if share <= LIMIT / 2)
    assert not stale, f"named insensitive, yet checked: {stale}"
