"""The CUDA backend's builds (kbx.evaluation.orchestrator.extensions): inside the confinement, under the compile
limit, into a cache keyed by the sources, and what a CPU machine says of a CUDA candidate. The builds need nvcc; no
GPU is needed, since the build job stops before linking where torch has no CUDA."""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from kbx.candidates.source import Candidate
from kbx.errors import NeedsGpu
from kbx.evaluation.extensions import ExtensionBuild, from_arguments
from kbx.evaluation.orchestrator.extensions import (
    MANIFEST,
    ExtensionBuilder,
    ExtensionCache,
    Prepared,
    Toolchain,
    _failure,
    find_cuda_home,
)
from kbx.evaluation.orchestrator.sandbox import Limits
from kbx.evaluation.protocol import Finished, ImportFailed
from kbx.status import Status

FIXTURES = Path(__file__).parent.parent.parent / "fixtures" / "cuda"
needs_nvcc = pytest.mark.skipif(find_cuda_home() is None, reason="needs the CUDA toolkit (nvcc)")
BUILD = from_arguments({"name": "e", "cpp_sources": "int f();", "cuda_sources": "__global__ void k() {}"})
TOOLS = Toolchain("/usr/local/cuda", "9.0", '{"nvcc": "13.0"}')


def test_the_key_names_the_sources_and_the_toolchain(tmp_path: Path):
    cache = ExtensionCache(tmp_path)
    other_source = from_arguments({"name": "e", "cpp_sources": "int f();", "cuda_sources": "__global__ void j() {}"})
    other_tools = Toolchain("/usr/local/cuda", "8.0", '{"nvcc": "13.0"}')
    keys = {cache.key(BUILD, TOOLS), cache.key(other_source, TOOLS), cache.key(BUILD, other_tools)}
    assert len(keys) == 3 and cache.key(BUILD, TOOLS) == ExtensionCache(tmp_path / "x").key(BUILD, TOOLS)


def _built_in(folder: Path, build: ExtensionBuild, products: list[str]) -> Path:
    folder.mkdir(parents=True)
    for name in products:
        (folder / name).write_bytes(b"\x7fELF")
    (folder / MANIFEST).write_text(json.dumps({"products": products, "kernels": ["k()"]}))
    return folder


def test_a_build_is_copied_into_the_cache_and_out_to_a_job(tmp_path: Path):
    cache = ExtensionCache(tmp_path / "cache")
    entry = cache.put("k1", _built_in(tmp_path / "job" / "build", BUILD, ["e.so"]), BUILD)
    assert cache.get("k1") == entry and (entry / "e.so").read_bytes() == b"\x7fELF"
    assert ExtensionBuild.from_json(json.loads((entry / MANIFEST).read_text())["build"]) == BUILD
    prepared = Prepared(((BUILD, entry),))
    prepared.require("cuda")
    (spec,) = prepared.install(tmp_path / "candidate-job")
    assert list(spec["kernels"]) == ["k()"] and Path(spec["path"]).read_bytes() == b"\x7fELF"
    assert Path(spec["path"]).parent.name == BUILD.digest()
    assert spec["sha256"] == hashlib.sha256(b"\x7fELF").hexdigest()


def test_the_cache_keeps_the_first_entry_of_a_key(tmp_path: Path):
    cache = ExtensionCache(tmp_path / "cache")
    first = cache.put("k1", _built_in(tmp_path / "a", BUILD, ["e.so"]), BUILD)
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "e.so").write_bytes(b"second")
    (tmp_path / "b" / MANIFEST).write_text(json.dumps({"products": ["e.so"], "kernels": []}))
    assert cache.put("k1", tmp_path / "b", BUILD) == first and (first / "e.so").read_bytes() == b"\x7fELF"


def test_products_outside_the_build_directory_are_refused(tmp_path: Path):
    folder = _built_in(tmp_path / "job", BUILD, ["e.so"])
    (folder / MANIFEST).write_text(json.dumps({"products": ["../../etc/passwd"], "kernels": []}))
    with pytest.raises(Exception, match="outside its directory"):
        ExtensionCache(tmp_path / "cache").put("k1", folder, BUILD)


def test_objects_without_a_module_or_a_cpu_device_are_not_judged(tmp_path: Path):
    objects = Prepared(((BUILD, _built_in(tmp_path / "o", BUILD, ["main.o", "cuda.cuda.o"])),))
    with pytest.raises(NeedsGpu, match="need a GPU"):
        objects.require("cuda")
    linked = Prepared(((BUILD, _built_in(tmp_path / "l", BUILD, ["e.so"])),))
    with pytest.raises(NeedsGpu):
        linked.require("cpu")
    Prepared().require("cpu")  # a Triton candidate has nothing to build


def test_how_a_build_job_ended_decides_its_status():
    assert _failure(True, -9, [], "", 60)[:2] == (Status.TIMEOUT, "the extensions did not compile within the "
                                                  "compile limit of 60 s")
    assert _failure(False, 0, [ImportFailed("COMPILE_ERROR", "cuda_sources(3): error", "log")], "", 60) == (
        Status.COMPILE_ERROR, "cuda_sources(3): error", "log")
    assert _failure(False, 0, [Finished()], "", 60) is None
    assert _failure(False, -11, [], "Segmentation fault", 60)[0] is Status.CRASHED


def test_the_toolkit_is_found_through_cuda_home(tmp_path: Path, monkeypatch):
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "nvcc").write_text("#!/bin/sh\n")
    monkeypatch.setenv("CUDA_HOME", str(tmp_path))
    assert find_cuda_home() == str(tmp_path)


@pytest.fixture()
def evaluator(cpu_evaluator, tmp_path: Path):
    """The session's CPU evaluator with a cache of this test's own."""
    kept = cpu_evaluator.extensions.cache
    cpu_evaluator.extensions.cache = ExtensionCache(tmp_path / "cache")
    yield cpu_evaluator
    cpu_evaluator.extensions.cache = kept


def _candidate(name: str, code: str | None = None) -> Candidate:
    return Candidate(name, "relu", code if code is not None else (FIXTURES / f"{name}.py").read_text())


@pytest.mark.slow
@needs_nvcc
def test_a_cuda_candidate_compiles_confined_and_a_second_with_its_sources_is_served_from_the_cache(evaluator, suite):
    """The first candidate raises as soon as it is imported: it still compiles, since the build job never imports
    it (what the cache keeps never met candidate code). The second has the same extension and builds nothing."""
    raising = (FIXTURES / "relu_raw.py").read_text() + "\nraise RuntimeError('imported')\n"
    start = time.monotonic()
    with pytest.raises(NeedsGpu, match=r"compiled \(0 from the cache\)"):
        evaluator.evaluate(suite["relu"], _candidate("raising", raising))
    built_s = time.monotonic() - start
    start = time.monotonic()
    with pytest.raises(NeedsGpu, match=r"compiled \(1 from the cache\)"):
        evaluator.evaluate(suite["relu"], _candidate("relu_raw"))
    cached_s = time.monotonic() - start
    print(f"\nbuild {built_s:.1f} s, cache hit {cached_s:.3f} s")
    assert cached_s < built_s / 10
    (entry,) = [p for p in evaluator.extensions.cache.root.iterdir() if not p.name.startswith(".")]
    kernels = json.loads((entry / MANIFEST).read_text())["kernels"]
    assert "relu_f32(float const*, float*, long)" in kernels and "_Z8relu_f32PKfPfl" in kernels


@pytest.mark.slow
@needs_nvcc
def test_a_compiler_error_is_compile_error_with_the_first_error_lines(evaluator, suite):
    evaluation = evaluator.evaluate(suite["relu"], _candidate("relu_syntax_error"))
    assert (evaluation.status, evaluation.stage) == (Status.COMPILE_ERROR, "build")
    assert evaluation.message.startswith('extension `kbx_relu_syntax` did not compile:\ncuda_sources(6): error: '
                                         'expected a ";"')
    assert "-isystem" not in evaluation.message and "kbx-job-" not in evaluation.message
    assert evaluation.phases["build"] > 0 and not list(evaluator.extensions.cache.root.glob("[!.]*"))


@pytest.mark.slow
@needs_nvcc
def test_a_build_past_the_compile_limit_is_timeout(cpu_evaluator, suite, tmp_path: Path):
    """`torch/extension.h` takes minutes to compile here; the limit ends the build job, apart from the call limit."""
    builder = ExtensionBuilder("cpu", cpu_evaluator.environment, Limits(timeout_s=600, compile_timeout_s=8),
                               cpu_evaluator.confinement, cpu_evaluator.extensions.zygote, cache_root=tmp_path)
    verdict_builds = _static_builds(suite, "relu")
    start = time.monotonic()
    prepared = builder.prepare(suite["relu"], verdict_builds)
    assert prepared.failure is not None and prepared.failure[0] is Status.TIMEOUT
    assert "compile limit of 8 s" in prepared.failure[1] and time.monotonic() - start < 60
    assert not list(tmp_path.glob("[!.]*"))


def _static_builds(suite, name: str) -> tuple[ExtensionBuild, ...]:
    from kbx.candidates.static import check_static

    task = suite["relu"]
    verdict = check_static((FIXTURES / f"{name}.py").read_text(), "relu", task.signature, None, task.forbidden)
    return verdict.extensions


def test_a_candidate_the_static_stage_rejects_builds_nothing(evaluator, suite):
    evaluation = evaluator.evaluate(suite["relu"], _candidate("relu_at_relu"))
    assert (evaluation.status, evaluation.stage) == (Status.REJECTED_STATIC, "static")
    assert not evaluator.extensions.cache.root.exists()


def test_a_build_the_machine_could_not_make_has_no_status():
    from kbx.evaluation.extensions import NEEDS_CUDA_TORCH

    failed = ImportFailed(NEEDS_CUDA_TORCH, "c10/cuda/impl/cuda_cmake_macros.h missing", "log")
    assert _failure(False, 0, [failed], "", 60) == (None, "c10/cuda/impl/cuda_cmake_macros.h missing", "log")
