"""Narrowing the candidate's /dev to its assigned GPUs: the driver's listing, the assignment, the nodes kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbx.evaluation.confinement import gpus
from kbx.evaluation.confinement.view import device_nodes

H100 = "NVIDIA H100 80GB HBM3"


def _listing(root: Path, entries: list[tuple[str, int, str, str]]) -> str:
    for bus, minor, uuid, model in entries:
        folder = root / bus
        folder.mkdir(parents=True)
        (folder / "information").write_text(
            f"Model: \t\t {model}\nIRQ: \t\t 42\nGPU UUID: \t {uuid}\nBus Location: \t {bus}\n"
            f"Device Minor: \t {minor}\nGPU Excluded:\t No\n")
    return str(root)


@pytest.fixture
def four(tmp_path: Path) -> list[gpus.Gpu]:
    # minors deliberately not in bus order: the node of ordinal 0 is nvidia2
    entries = [(f"0000:{bus:02x}:00.0", minor, f"GPU-{minor}aaaaaaa-0000-0000-0000-00000000000{minor}", H100)
               for bus, minor in ((0x18, 2), (0x2a, 0), (0x3a, 3), (0x5d, 1))]
    return gpus.read_listing(_listing(tmp_path / "gpus", entries))


def test_the_listing_is_read_in_bus_order_and_broken_entries_are_skipped(tmp_path: Path, four):
    assert [g.minor for g in four] == [2, 0, 3, 1]
    assert four[0].model == H100 and four[0].uuid.startswith("GPU-2")
    broken = tmp_path / "broken"
    (broken / "0000:01:00.0").mkdir(parents=True)
    (broken / "0000:01:00.0" / "information").write_text("Model: x\n")
    assert gpus.read_listing(str(broken)) == []
    assert gpus.read_listing(str(tmp_path / "absent")) == []


def test_an_ordinal_names_the_gpu_in_bus_order_and_the_worker_then_names_it_by_uuid(four):
    assignment = gpus.resolve({"CUDA_VISIBLE_DEVICES": "2"}, four)
    assert assignment.nodes() == ("/dev/nvidia3",)
    assert assignment.visible_devices() == four[2].uuid
    both = gpus.resolve({"CUDA_VISIBLE_DEVICES": "3,0"}, four)
    assert both.nodes() == ("/dev/nvidia1", "/dev/nvidia2")


def test_a_uuid_or_its_unique_prefix_names_its_gpu(four):
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": four[1].uuid}, four).nodes() == ("/dev/nvidia0",)
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "GPU-3aaa"}, four).nodes() == ("/dev/nvidia3",)
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "GPU-"}, four).gpus is None  # names all four


def test_an_empty_assignment_keeps_no_gpu(four):
    for visible in ("", "-1", "-1,0"):
        assignment = gpus.resolve({"CUDA_VISIBLE_DEVICES": visible}, four)
        assert assignment.nodes() == () and assignment.visible_devices() == ""


def test_an_unpinned_worker_keeps_the_first_gpu_it_computes_on(four):
    assert gpus.resolve({}, four).nodes() == ("/dev/nvidia2",)


@pytest.mark.parametrize("environ", [
    {"CUDA_VISIBLE_DEVICES": "4"},  # no such GPU
    {"CUDA_VISIBLE_DEVICES": "MIG-0f3c8d9e-1111-2222-3333-444455556666"},
])
def test_what_cannot_be_resolved_keeps_every_node_and_says_why(four, environ):
    assignment = gpus.resolve(environ, four)
    assert assignment.nodes() is None and assignment.visible_devices() is None
    assert assignment.why


def test_ordinals_on_mixed_models_follow_the_bus_only_when_the_order_says_so(tmp_path: Path):
    mixed = gpus.read_listing(_listing(tmp_path, [("0000:01:00.0", 0, "GPU-a", H100),
                                                  ("0000:02:00.0", 1, "GPU-b", "NVIDIA A100")]))
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "1"}, mixed).gpus is None
    in_bus_order = {"CUDA_VISIBLE_DEVICES": "1", "CUDA_DEVICE_ORDER": "PCI_BUS_ID"}
    assert gpus.resolve(in_bus_order, mixed).nodes() == ("/dev/nvidia1",)
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "GPU-b"}, mixed).nodes() == ("/dev/nvidia1",)


def test_no_listing_keeps_every_node(four):
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "0"}, []).gpus is None


def test_the_view_keeps_shared_driver_nodes_and_only_the_assigned_gpus_own(tmp_path: Path):
    dev = tmp_path / "dev"
    dev.mkdir()
    for name in ("null", "zero", "nvidia0", "nvidia1", "nvidia12", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools",
                 "nvidia-caps", "sda"):
        (dev / name).touch()
    names = lambda nodes: sorted(Path(n).name for n in nodes)  # noqa: E731
    assert names(device_nodes(str(dev), ("/dev/nvidia1",))) == [
        "null", "nvidia-caps", "nvidia-uvm", "nvidia-uvm-tools", "nvidia1", "nvidiactl", "zero"]
    assert "nvidia12" in names(device_nodes(str(dev), None)) and "nvidia0" in names(device_nodes(str(dev), None))
    assert names(device_nodes(str(dev), ())) == ["null", "nvidia-caps", "nvidia-uvm", "nvidia-uvm-tools",
                                                 "nvidiactl", "zero"]


def test_ordinals_count_among_the_gpus_whose_node_exists(tmp_path: Path, four):
    dev = tmp_path / "dev"
    dev.mkdir()
    for minor in (3, 1):  # a container given two of the host's four GPUs, seeing the whole driver listing
        (dev / f"nvidia{minor}").touch()
    mine = gpus.openable(four, str(dev))
    assert [g.minor for g in mine] == [3, 1]
    assert gpus.resolve({"CUDA_VISIBLE_DEVICES": "0"}, mine).nodes() == ("/dev/nvidia3",)
    assert gpus.resolve({}, mine).nodes() == ("/dev/nvidia3",)
