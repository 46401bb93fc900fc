"""The commands that read the store (`kbx.cli_stored`): `runs list`, `runs show`, `export`, `report`, `compare`,
run in-process through `kbx.cli.main` on the analysis tests' synthetic stores (`tests.analysis.conftest`)."""

from __future__ import annotations

import json
import subprocess
import sys

from kbx.cli import main
from tests.analysis import conftest as stores

store_path = stores.store_path
kernelbench_store = stores.kernelbench_store

RUNS = ["run-a-h100", "run-a-h200", "run-b", "run-c", "run-d"]


def _kbx(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_runs_list_json_has_every_run_oldest_first(store_path, capsys):
    code, out, _ = _kbx(capsys, "runs", "list", "--json", "--store", str(store_path))
    runs = json.loads(out)
    assert code == 0 and [r["run_id"] for r in runs] == RUNS
    assert runs[1]["evaluations"] == 2 and all(r["finished"] for r in runs)


def test_runs_list_prints_a_line_a_run_and_the_count(store_path, capsys):
    code, out, _ = _kbx(capsys, "runs", "list", "--store", str(store_path))
    lines = out.strip().splitlines()
    assert code == 0 and len(lines) == 1 + len(RUNS) + 1
    assert lines[3].startswith("run-b ") and " oneshot " in lines[3] and "model-b" in lines[3]
    assert "4 evals  finished" in lines[3] and lines[-1] == f"5 run(s) in {store_path}"


def test_an_empty_store_lists_no_runs_and_has_none_to_report(tmp_path, capsys):
    empty = tmp_path / "empty.db"
    assert _kbx(capsys, "runs", "list", "--store", str(empty))[1] == f"0 run(s) in {empty}\n"
    code, _, err = _kbx(capsys, "report", "--all", "--store", str(empty))
    assert code == 2 and err.startswith("kbx: error: no run in")


def test_runs_show_prints_the_run_its_model_calls_and_summary(store_path, capsys):
    code, out, _ = _kbx(capsys, "runs", "show", "run-d", "--store", str(store_path))
    assert code == 0 and "run_id       run-d" in out and "method       refine" in out
    assert "model calls  11, 2100 prompt + 550 completion tokens, $0.0110" in out
    assert "cached       0 served from earlier runs" in out and "Activation" in out


def test_runs_show_says_unpriced_and_leaves_out_model_calls_where_there_were_none(store_path, capsys):
    sampled = _kbx(capsys, "runs", "show", "run-c", "--store", str(store_path))[1]
    assert "model calls  12, 1200 prompt + 600 completion tokens, unpriced" in sampled
    assert "model calls" not in _kbx(capsys, "runs", "show", "run-b", "--store", str(store_path))[1]


def test_an_unknown_run_is_one_line_and_exit_2(store_path, capsys):
    for command in (["runs", "show", "nope"], ["export", "nope"], ["report", "nope"], ["compare", "run-b", "nope"]):
        code, out, err = _kbx(capsys, *command, "--store", str(store_path))
        assert code == 2 and out == "" and err.startswith("kbx: error: no run 'nope'"), command


def test_export_writes_the_runs_rows_and_says_how_many(store_path, tmp_path, capsys):
    out = tmp_path / "out" / "b.jsonl"
    code, printed, _ = _kbx(capsys, "export", "run-b", "--out", str(out), "--store", str(store_path))
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert code == 0 and printed == f"4 evaluation(s) of run run-b -> {out}\n"
    assert [r["task"] for r in rows] == ["relu", "gelu", "sum", "matmul"] and {r["run_id"] for r in rows} == {"run-b"}


def test_the_report_prints_the_tables_and_writes_the_html(store_path, tmp_path, capsys):
    out = tmp_path / "r" / "report.html"
    code, printed, _ = _kbx(capsys, "report", *RUNS, "--store", str(store_path), "--html", str(out),
                            "--resamples", "20")
    assert code == 0 and "fast_1 eager" in printed and "category + method" in printed and "refine:model-d" in printed
    assert out.read_text().startswith("<!DOCTYPE html>") and printed.endswith(f"HTML report: {out}\n")


def test_report_all_ranks_every_run_of_the_store_as_markdown(store_path, capsys):
    code, out, _ = _kbx(capsys, "report", "--all", "--markdown", "--store", str(store_path), "--resamples", "20")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("| # | method | device | tasks | correct |")
    assert lines[1].startswith("|---|") and len(lines) == 2 + len(RUNS)  # every run of the store, one row each
    correct = [int(line.split("|")[5].split("%")[0]) for line in lines[2:]]
    assert correct == sorted(correct, reverse=True)


def test_report_markdown_adds_the_kernelbench_tables_after_the_leaderboard(kernelbench_store, capsys):
    code, out, _ = _kbx(capsys, "report", "run-kb", "--markdown", "--store", str(kernelbench_store),
                        "--resamples", "20")
    assert code == 0
    assert out.index("| # | method |") < out.index("| method | baseline | fast_0 |") < out.index("where they differ")


def test_report_needs_runs_or_all_but_not_both_and_a_resample(store_path, capsys):
    for args, problem in ((["report"], "name the runs to report on, or give --all"),
                          (["report", "run-b", "--all"], "name the runs to report on, or give --all"),
                          (["report", "run-b", "--resamples", "0"], "--resamples must be >= 1")):
        code, _, err = _kbx(capsys, *args, "--store", str(store_path))
        assert code == 2 and problem in err, args


def test_compare_shows_what_changed_task_by_task(store_path, capsys):
    code, out, _ = _kbx(capsys, "compare", "run-a-h100", "run-b", "--store", str(store_path))
    assert code == 0 and "broken" in out and "fixed" in out and "1 fixed, 1 broken" in out


def test_listing_runs_imports_neither_torch_nor_the_analysis(store_path):
    probe = ("import sys; from kbx.cli import main; main(['runs', 'list', '--store', sys.argv[1]]); "
             "print(sorted(m for m in ('torch', 'kbx.analysis', 'kbx.report') if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", probe, str(store_path)], capture_output=True, text=True,
                            timeout=120, check=True)
    assert result.stdout.strip().splitlines()[-1] == "[]"
