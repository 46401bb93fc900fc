"""The generation flags of `kbx run`: user mistakes are one line."""

from __future__ import annotations

from kbx.cli import main


def test_generation_flags_at_the_cli(capsys, tmp_path):
    common = ["--tasks", "relu", "--device", "cpu", "--out", str(tmp_path), "--store", str(tmp_path / "k.db")]
    assert main(["run", "--method", "sample", "--iterations", "3", "--model", "replay:x.jsonl", *common]) == 2
    assert capsys.readouterr().err == "kbx: error: --iterations is for methods that iterate (refine), not sample\n"
    assert main(["run", "--method", "refine", "--samples", "0", "--model", "replay:x.jsonl", *common]) == 2
    assert "--samples" in capsys.readouterr().err
    assert main(["run", "--method", "refine", "--model", "replay:missing.jsonl", *common]) == 2
    assert capsys.readouterr().err == "kbx: error: replay: missing.jsonl: no such file\n"
    assert main(["run", "--method", "bestof", *common]) == 2
    assert "available: oneshot, reference, refine, sample" in capsys.readouterr().err
