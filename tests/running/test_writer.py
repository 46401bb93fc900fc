"""Recording a run's evaluations: log lines on a file, a status line on a terminal."""

import io
from types import SimpleNamespace

from kbx.running.writer import ProgressBar, Writer


class _Tty(io.StringIO):
    def isatty(self):
        return True


def _row(status="PASSED"):
    return {"task": "relu", "status": status, "elapsed_s": 1.0, "candidate": "a.py", "message": ""}


def test_a_terminal_gets_a_status_line_with_passes_and_time_left():
    stream = _Tty()
    bar = ProgressBar(stream)
    bar.show("[1/4] relu PASSED", "1/4 done, 1 passed", 1, 4)
    text = stream.getvalue()
    assert text.startswith("\r\x1b[K[1/4] relu PASSED\n[######")
    assert "1/4 done, 1 passed" in text and "left" in text


def test_ci_and_files_get_log_lines_only():
    stream = io.StringIO()
    writer = Writer(store=None, run_id="r", total=3, progress=stream, use_cache=False)
    writer._report(_row(), "")
    writer._report(_row("MISMATCH"), "")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("[1/3] relu") and "\r" not in stream.getvalue()


def test_the_bar_counts_passes():
    stream = _Tty()
    writer = Writer(store=None, run_id="r", total=2, progress=stream, use_cache=False)
    writer._report(_row(), "")
    writer._report(_row("MISMATCH"), "")
    assert "2/2 done, 1 passed" in stream.getvalue() and stream.getvalue().endswith("\n")



def test_an_evaluation_that_cannot_be_judged_is_a_log_line_above_the_status_line():
    from kbx.errors import ReferenceFailed

    stream = _Tty()
    writer = Writer(store=None, run_id="r", total=2, progress=stream, use_cache=False)
    writer.not_judged(SimpleNamespace(name="eigh"), SimpleNamespace(name="s.py"), ReferenceFailed("cusolver"))
    assert stream.getvalue().startswith("\r\x1b[K[1/2] eigh") and "NOT JUDGED" in stream.getvalue()
    assert "1/2 done, 0 passed" in stream.getvalue() and writer.unjudged == ["cusolver"]


def test_work_that_fails_as_an_interrupted_run_closes_is_not_reported():
    from kbx.errors import ReferenceFailed

    stream = _Tty()
    writer = Writer(store=None, run_id="r", total=2, progress=stream, use_cache=False)
    writer.stopped = True
    writer.not_judged(SimpleNamespace(name="conv2d"), SimpleNamespace(name="s.py"),
                      ReferenceFailed("the trusted worker died (exit code 0) while serving 'check'"))
    assert stream.getvalue() == "" and writer.unjudged == []
