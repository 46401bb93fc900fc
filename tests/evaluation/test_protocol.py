"""The channel's events: what the worker writes reads back as the same value; anything else is Unreadable."""

from __future__ import annotations

import pytest

from kbx.evaluation.protocol import (
    TIMED,
    CaseDone,
    CaseFailed,
    CaseStart,
    ConfinementFailed,
    Finished,
    Imported,
    ImportFailed,
    Launches,
    Started,
    Timed,
    TorchWork,
    Unreadable,
    decode,
    encode,
)


@pytest.mark.parametrize(
    "event",
    [
        Started(1), Imported(), CaseStart(3), Finished(), ConfinementFailed("OSError: no"),
        CaseDone(2, "case_2.pt", ("input",), TorchWork({"aten.add": 12}, 1000)),
        ImportFailed("COMPILE_ERROR", "SyntaxError: x", "tb"), CaseFailed(TIMED, "RUNTIME_ERROR", "boom", ""),
        Timed(0, "timed_0.json"), Timed(1, "timed_1.json", "timed_1.pt"),
        CaseDone(0, "case_0.pt", (), TorchWork({}, 10),
                 Launches(3, 1, {"sm90_gemm": 2}, {"at::native::fill": 1}, 900, 5000, 8, 4000)),
        Timed(1, "timed_1.json", "timed_1.pt", Launches(1, 0, {}, {}, 0, 100, 0, 4000)),
        Finished((("*fp32", "*fp32", "i32", "constexpr"), ("*bf16", "i64"))),
    ],
)
def test_what_the_worker_writes_reads_back(event):
    assert decode(encode(event).encode()) == event


@pytest.mark.parametrize(
    "line",
    [
        "not json", "[1, 2]", '{"event": "nonsense"}', '{"index": 0}', '{"event": "case_start"}',
        '{"event": "case_start", "index": "0"}', '{"event": "case_start", "index": true}',
        '{"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": []}',  # no tally of torch's work
        '{"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": [1], '
        '"torch_work": {"ops": {}, "largest_input": 1}}',
        '{"event": "case_done", "index": 0, "file": "case_0.pt", "mutated": [], '
        '"torch_work": {"ops": {"aten.add": 1.5}, "largest_input": 1}}',
        '{"event": "timed", "slot": 0}',
        '{"event": "timed", "slot": 0, "measurement": "m", "launches": {"own": 1}}',
        '{"event": "timed", "slot": 0, "measurement": "m", "launches": {"own": 1, "dispatched": 0, '
        '"foreign": [], "stray_torch": {}, "stray_torch_ns": 0, "kernel_ns": 0, "host_bytes": 0, '
        '"largest_input_bytes": 0}}',
        '{"event": "finished", "launchers": [["*fp32", 3]]}', '{"event": "finished", "launchers": ["*fp32"]}',
        '{"event": "finished", "launchers": {"a": ["i32"]}}',
    ],
)
def test_anything_else_is_unreadable(line):
    assert isinstance(decode(line), Unreadable)
