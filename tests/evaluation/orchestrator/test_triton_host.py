"""Triton's host code for candidate workers: what is built from a report, and what each worker gets a copy of."""

from __future__ import annotations

import json
import threading

import pytest

from kbx.evaluation.candidate.triton_host import MAX_REPORTED
from kbx.evaluation.orchestrator import triton_host
from kbx.evaluation.orchestrator.triton_host import TritonHost, acceptable, for_device
from kbx.evaluation.protocol import Finished, Started


@pytest.mark.parametrize("signature", [("*fp32", "*fp32", "i32", "constexpr"), ("*kfp16", "i64"), ("nvTmaDesc",)])
def test_plain_type_names_are_acceptable(signature):
    assert acceptable(list(signature)) == signature


@pytest.mark.parametrize(
    "signature",
    [
        (), ("*fp32); system(\"id\"); (",), ("i32\n",), ("i32 ",), ("",), ("**fp32",), (3,), (None,),
        ("i32",) * 65, ("a" * 17,),
    ],
)
def test_anything_else_is_not(signature):
    assert acceptable(signature) is None


class Recording(TritonHost):
    """A TritonHost whose builds are recorded, not compiled (the real build needs a GPU machine's libcuda)."""

    def __init__(self, folder):
        self.builds = []
        self.built = threading.Event()
        super().__init__(folder)

    def _build(self, signatures):
        self.builds.append(list(signatures))
        if signatures:
            self.built.set()
        return True


def test_reported_signatures_are_built_once_each_and_indexed(tmp_path):
    host = Recording(tmp_path)
    host.learn_from([Started(1), Finished((("*fp32", "i32"), ("bad type",), ("*fp32", "i32")))])
    assert host.built.wait(10)
    host.learn([("*fp32", "i32")])  # known: nothing more to build
    host.close(wait_s=10)
    assert host.builds == [[], [("*fp32", "i32")]]  # cuda_utils first, then the one new launcher
    assert json.loads((tmp_path / "launchers.json").read_text()) == [["*fp32", "i32"]]
    again = Recording(tmp_path)  # a later Evaluator knows what the folder holds
    again.learn([("*fp32", "i32")])
    again.close(wait_s=10)
    assert again.builds == [[]]


@pytest.mark.parametrize("index", ["{not json", "7", '{"a": 1}', '[["*fp32", "i32"], ["bad type"], 3]'])
def test_an_index_is_read_for_what_it_holds_of_use(tmp_path, index):
    (tmp_path / "launchers.json").write_text(index)
    host = Recording(tmp_path)
    host.learn([("*fp32", "i32")])
    host.close(wait_s=10)
    assert host.builds == ([[]] if index.startswith("[[") else [[], [("*fp32", "i32")]])


def test_a_report_counts_only_its_first_signatures(tmp_path):
    host = Recording(tmp_path)
    host.learn([("*fp32",) + ("i32",) * n for n in range(MAX_REPORTED + 4)])
    host.close(wait_s=10)
    assert len(host.builds[1]) == MAX_REPORTED


def test_the_folder_has_room_for_so_many_launchers(tmp_path, monkeypatch):
    monkeypatch.setattr(triton_host, "_MAX_LAUNCHERS", 3)
    host = Recording(tmp_path)
    host.learn([("*fp32",) + ("i32",) * n for n in range(5)])
    host.close(wait_s=10)
    assert len(host.builds[1]) == 3


def test_a_worker_gets_a_copy_of_the_finished_modules_only(tmp_path):
    folder, cache = tmp_path / "host", tmp_path / "job" / ".triton"
    (folder / "abc").mkdir(parents=True)
    (folder / "abc" / "cuda_utils.so").write_bytes(b"ELF")
    (folder / "abc" / "tmp.pid_1_x").write_bytes(b"half")  # Triton's file in the making
    (folder / "tmp.pid_2_y").mkdir()
    (folder / "launchers.json").write_text("[]")
    host = Recording(folder)
    host.seed(cache)
    host.close(wait_s=10)
    assert sorted(p.relative_to(cache).as_posix() for p in cache.rglob("*")) == ["abc", "abc/cuda_utils.so"]
    (cache / "abc" / "cuda_utils.so").write_bytes(b"planted")  # the worker's copy is its own
    assert (folder / "abc" / "cuda_utils.so").read_bytes() == b"ELF"


def test_a_missing_folder_seeds_nothing(tmp_path):
    host = Recording(tmp_path / "absent")
    host.seed(tmp_path / "cache")
    host.close(wait_s=10)
    assert not (tmp_path / "cache").exists()


def test_only_a_gpu_gets_triton_host_code(tmp_path, monkeypatch):
    monkeypatch.setenv("KBX_CACHE_DIR", str(tmp_path))
    assert for_device("cpu") is None
    monkeypatch.setattr(TritonHost, "_build", lambda self, signatures: False)
    host = for_device("cuda")
    assert host is not None and host.folder.parent == tmp_path / "triton-host"
    host.close(wait_s=10)


@pytest.mark.slow
def test_a_candidate_worker_starts_with_a_copy_and_its_report_is_learned(tmp_path, suite):
    """Through the pipeline: the worker's Triton cache holds the folder's modules before the candidate runs, and what
    a worker's `Finished` reported reaches `learn` (on the CPU no launcher is noted, so the report is empty); a worker
    whose candidate raised (`CaseFailed`) reports nothing."""
    from kbx.candidates.source import Candidate
    from kbx.evaluation.orchestrator.pipeline import Evaluator

    folder = tmp_path / "host"
    (folder / "KEY").mkdir(parents=True)
    (folder / "KEY" / "cuda_utils.so").write_bytes(b"ELF")
    looks = (
        "import os\nimport triton\n"
        "@triton.jit\ndef _unused(x_ptr):\n    pass\n"
        "def relu(input):\n"
        "    raise RuntimeError(f\"cache holds {sorted(os.listdir('.triton'))} {os.listdir('.triton/KEY')}\")\n"
        "    _unused[(1,)](input)\n"
    )
    with Evaluator("cpu", timing=None) as evaluator:
        evaluator._triton_host = host = Recording(folder)
        learned = []
        host.learn = learned.append
        evaluation = evaluator.evaluate(suite["relu"], Candidate("looks", "relu", looks))
        assert learned == []
        solution = (suite["relu"].path / "solution.py").read_text()
        assert evaluator.evaluate(suite["relu"], Candidate("solution", "relu", solution)).correct
        host.close(wait_s=10)
    assert "cache holds ['KEY'] ['cuda_utils.so']" in evaluation.message, evaluation.message
    assert learned == [()]
