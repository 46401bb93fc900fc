"""The canonical form of a `load_inline` call (kbx.evaluation.extensions): the static stage and the candidate's
worker must reach the same digest for the same call, and no digest for a call kbx refuses."""

from __future__ import annotations

import pytest

from kbx.evaluation.extensions import BuiltExtension, ExtensionBuild, from_arguments

ARGS = {"name": "relu_ext", "cpp_sources": "int f();", "cuda_sources": "__global__ void k() {}", "functions": ["f"]}


def test_equivalent_spellings_of_one_call_have_one_digest():
    spelled = [
        ARGS,
        {**ARGS, "cpp_sources": ["int f();"], "cuda_sources": ("__global__ void k() {}",), "functions": "f"},
        {**ARGS, "verbose": True, "keep_intermediates": False, "extra_cflags": None, "with_cuda": None},
    ]
    assert len({from_arguments(a).digest() for a in spelled}) == 1


def test_anything_that_changes_the_build_changes_the_digest():
    base = from_arguments(ARGS).digest()
    for change in ({"cuda_sources": "__global__ void k2() {}"}, {"extra_cuda_cflags": ["-O3"]},
                   {"name": "other"}, {"functions": ["f", "g"]}, {"no_implicit_headers": True}):
        assert from_arguments({**ARGS, **change}).digest() != base


def test_a_build_survives_its_json_and_gives_load_inline_its_arguments():
    build = from_arguments({**ARGS, "extra_cuda_cflags": ["-O3"]})
    assert ExtensionBuild.from_json(build.to_json()) == build
    arguments = build.load_inline_arguments()
    assert arguments["cuda_sources"] == ["__global__ void k() {}"] and arguments["extra_cuda_cflags"] == ["-O3"]
    assert "build_directory" not in arguments


@pytest.mark.parametrize("change, expected", [
    ({"build_directory": "/tmp/x"}, "kbx chooses where"),
    ({"is_python_module": False}, "Python module"),
    ({"use_pch": True}, "precompiled header"),
    ({"sycl_sources": "x"}, "only CUDA sources"),
    ({"extra_include_paths": ["/usr/include"]}, "headers"),
    ({"name": "a-b"}, "identifier"),
    ({"functions": ["f(); system"]}, "plain identifiers"),
    ({"functions": {"f": "doc"}}, "list of strings"),
    ({"with_cuda": "yes"}, "True or False"),
    ({"sources": ["a.cu"]}, "no argument of load_inline"),
])
def test_refused_arguments_have_no_build(change, expected):
    with pytest.raises(ValueError, match=expected):
        from_arguments({**ARGS, **change})


def test_empty_include_paths_and_default_values_are_accepted():
    assert from_arguments({**ARGS, "extra_include_paths": [], "is_python_module": True, "use_pch": False})


def test_a_built_extension_crosses_the_job_spec():
    built = BuiltExtension("d" * 32, "relu_ext", "/dev/shm/job/extensions/x/relu_ext.so", ("k()", "_Z1kv"))
    assert BuiltExtension.from_json(built.to_json()) == built
