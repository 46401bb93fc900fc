import stat

from kbx.timing.clocks import GpuClocks, parse_line, read_clocks


def test_parse_a_line():
    clocks = parse_line("1980, 2619, 1980, 550.54.15, NVIDIA H100 80GB HBM3\n")
    assert clocks == GpuClocks(
        sm_mhz=1980, mem_mhz=2619, max_sm_mhz=1980, driver="550.54.15", name="NVIDIA H100 80GB HBM3"
    )


def test_not_available_fields_are_none():
    clocks = parse_line("[N/A], [N/A], 1980, 550.54.15, NVIDIA H100")
    assert clocks.sm_mhz is None and clocks.mem_mhz is None and clocks.max_sm_mhz == 1980


def test_a_short_line_is_an_error_not_an_exception():
    clocks = parse_line("garbage")
    assert clocks.sm_mhz is None and "unexpected" in clocks.error


def test_missing_nvidia_smi_gives_none_fields():
    clocks = read_clocks(0, executable="kbx-no-such-nvidia-smi")
    assert clocks.sm_mhz is None and clocks.driver is None and "not found" in clocks.error
    assert clocks.to_json()["name"] is None


def _fake_smi(tmp_path, body):
    script = tmp_path / "fake-smi"
    script.write_text("#!/bin/sh\n" + body)
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return str(script)


def test_read_clocks_runs_the_query_for_one_gpu(tmp_path):
    smi = _fake_smi(tmp_path, 'echo "$@" > "$(dirname "$0")/args"\necho "1410, 1593, 1980, 535.1, NVIDIA A100"\n')
    clocks = read_clocks("GPU-1234", executable=smi)
    assert clocks.sm_mhz == 1410 and clocks.name == "NVIDIA A100"
    args = (tmp_path / "args").read_text().split()
    assert args[-2:] == ["-i", "GPU-1234"] and "--format=csv,noheader,nounits" in args


def test_a_failing_nvidia_smi_gives_none_fields(tmp_path):
    smi = _fake_smi(tmp_path, "echo 'No devices were found' >&2\nexit 6\n")
    clocks = read_clocks(0, executable=smi)
    assert clocks.sm_mhz is None and "exited 6" in clocks.error


def test_device_clocks_fall_back_from_the_uuid_to_the_visible_index(tmp_path, monkeypatch):
    import types

    import torch

    from kbx.timing.clocks import read_device_clocks, smi_ids

    uuid = "0badf00d-0000-1111-2222-333344445555"
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i: types.SimpleNamespace(uuid=uuid))
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "5,3")
    assert smi_ids(1) == [f"GPU-{uuid}", "3"]
    body = 'case "$*" in *GPU-*) echo "Invalid id" >&2; exit 1;; esac\necho "1755, 2619, 1980, 550.1, NVIDIA H100"\n'
    clocks = read_device_clocks(1, executable=_fake_smi(tmp_path, body))
    assert clocks.sm_mhz == 1755 and clocks.error is None
