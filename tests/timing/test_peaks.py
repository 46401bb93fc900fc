import json

import pytest

from kbx.timing.peaks import cache_dir, cache_key, load_or_measure_peaks
from kbx.timing.sol import Peaks

FINGERPRINT = {"gpu": "NVIDIA H100 80GB HBM3", "driver": "550.54.15", "torch": "2.11.0", "cuda": "12.8"}


class Measurer:
    def __init__(self, bandwidth=3e12):
        self.bandwidth = bandwidth
        self.calls = 0

    def __call__(self, device):
        self.calls += 1
        return Peaks(bandwidth=self.bandwidth, flops={"bfloat16": 7e14}, device="H100", method="mock")


def test_cache_dir_follows_kbx_cache_dir(monkeypatch, tmp_path):
    monkeypatch.setenv("KBX_CACHE_DIR", str(tmp_path))
    assert cache_dir() == tmp_path / "peaks"
    monkeypatch.delenv("KBX_CACHE_DIR")
    assert cache_dir().parts[-3:] == (".cache", "kbx", "peaks")


def test_cache_key_names_the_gpu_and_changes_with_any_field():
    key = cache_key(FINGERPRINT)
    assert key.startswith("nvidia-h100-80gb-hbm3-")
    for field in FINGERPRINT:
        assert cache_key({**FINGERPRINT, field: "other"}) != key


def test_peaks_are_measured_once_then_read_from_the_cache(tmp_path):
    measure = Measurer()
    first = load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=measure)
    second = load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=measure)
    assert measure.calls == 1
    assert first == second
    assert dict(second.fingerprint) == FINGERPRINT
    saved = json.loads((tmp_path / f"{cache_key(FINGERPRINT)}.json").read_text())
    assert saved["bandwidth"] == 3e12 and saved["fingerprint"] == FINGERPRINT


def test_a_new_driver_is_measured_again(tmp_path):
    measure = Measurer()
    load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=measure)
    load_or_measure_peaks(0, directory=tmp_path, fingerprint={**FINGERPRINT, "driver": "560.0"}, measure=measure)
    assert measure.calls == 2
    assert len(list(tmp_path.glob("*.json"))) == 2


def test_refresh_measures_again_and_overwrites(tmp_path):
    load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=Measurer(1e12))
    peaks = load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, refresh=True, measure=Measurer(2e12))
    assert peaks.bandwidth == 2e12
    cached = load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=Measurer(9e12))
    assert cached.bandwidth == 2e12


@pytest.mark.parametrize("content", ["not json", '{"flops": {}}', '{"bandwidth": -1, "flops": {}}'])
def test_a_corrupt_cache_file_is_measured_again(tmp_path, content):
    (tmp_path / f"{cache_key(FINGERPRINT)}.json").write_text(content)
    measure = Measurer()
    peaks = load_or_measure_peaks(0, directory=tmp_path, fingerprint=FINGERPRINT, measure=measure)
    assert measure.calls == 1 and peaks.bandwidth == 3e12
    assert not list(tmp_path.glob("*.tmp"))
