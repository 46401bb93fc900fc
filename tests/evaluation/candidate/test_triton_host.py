"""The worker's side of Triton's host code: the launcher signatures it notes, and Triton's hash of itself."""

from __future__ import annotations

import types

import pytest
import triton.backends.nvidia

from kbx.evaluation.candidate import triton_host


@pytest.fixture
def fake_driver(monkeypatch):
    """A Triton 3.6-like driver module: `make_launcher(constants, signature, tensordesc_meta)` returns C source."""
    driver = types.ModuleType("driver")
    driver.make_launcher = lambda constants, signature, tensordesc_meta: f"/* {list(signature.values())} */"
    monkeypatch.setattr(triton.backends.nvidia, "driver", driver, raising=False)
    monkeypatch.setattr(triton_host, "_noted", [])
    return driver


def test_signatures_are_noted_once_each_in_order(fake_driver):
    triton_host.note_launcher_signatures()
    first = {"x": "*fp32", "y": "*fp32", "n": "i32", "BLOCK": "constexpr"}
    assert fake_driver.make_launcher({}, first, None) == "/* ['*fp32', '*fp32', 'i32', 'constexpr'] */"
    fake_driver.make_launcher({}, {"x": "*bf16", "n": "i64"}, None)
    fake_driver.make_launcher({}, first, None)
    assert triton_host.noted_signatures() == (("*fp32", "*fp32", "i32", "constexpr"), ("*bf16", "i64"))


def test_tuples_and_tensor_descriptors_are_not_noted(fake_driver):
    triton_host.note_launcher_signatures()
    fake_driver.make_launcher({}, {"pair": ("*fp32", "i32")}, None)
    fake_driver.make_launcher({}, {"d": "tensordesc<fp16[64, 64]>"}, [{"swizzle": 128}])
    assert triton_host.noted_signatures() == ()


def test_a_report_is_capped(fake_driver):
    triton_host.note_launcher_signatures()
    for n in range(triton_host.MAX_REPORTED + 5):
        fake_driver.make_launcher({}, {"x": "*fp32", **{f"a{i}": "i32" for i in range(n)}}, None)
    assert len(triton_host.noted_signatures()) == triton_host.MAX_REPORTED


def test_a_triton_without_per_signature_launchers_is_left_alone(monkeypatch):
    driver = types.ModuleType("driver")
    driver.make_launcher = lambda signature: "generic"  # another form: not wrapped
    monkeypatch.setattr(triton.backends.nvidia, "driver", driver, raising=False)
    generator = driver.make_launcher
    triton_host.note_launcher_signatures()
    assert driver.make_launcher is generator


def test_tritons_hash_of_itself_is_computed_once_for_the_process(monkeypatch):
    from triton.runtime.cache import triton_key

    monkeypatch.delenv("TRITON_INTERPRET", raising=False)
    triton_key.cache_clear()
    triton_host.warm_triton()
    assert triton_key.cache_info().currsize == 1
    monkeypatch.setenv("TRITON_INTERPRET", "1")
    triton_key.cache_clear()
    triton_host.warm_triton()  # the interpreter compiles nothing: not hashed
    assert triton_key.cache_info().currsize == 0
