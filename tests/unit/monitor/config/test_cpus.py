"""monitor/config/cpus.py: the cgroup CPU quota read from fake /proc and cgroup files laid out in a
temporary root, as v2 (with and without a cgroup namespace), v1 (Docker without one) and the
hybrid layout (v1 cpu controller beside an empty v2 tree)."""

from __future__ import annotations

from fractions import Fraction
from math import ceil
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from monitor.config import cpus
from monitor.config.cpus import (
    cgroup_cpu_limit,
    parse_cfs,
    parse_cpu_max,
    parse_mountinfo,
    parse_proc_cgroup,
    usable_cpus,
)

V2_MOUNT = "30 23 0:26 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n"
ROOT_MOUNT = "22 1 8:1 / / rw,relatime - ext4 /dev/sda1 rw\n"


def _lay(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel.lstrip("/")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_cpu_max_by_hand() -> None:
    assert parse_cpu_max("max 100000\n") is None
    assert parse_cpu_max("100000 100000\n") == 1
    assert parse_cpu_max("150000 100000\n") == 2  # 1.5 CPUs: a second process can run
    assert parse_cpu_max("50000 100000") == 1  # half a CPU still runs the worker
    assert parse_cpu_max("400000 100000") == 4
    assert parse_cpu_max("200000") == 2  # period omitted: the kernel default, 100 ms
    assert parse_cpu_max("") is None
    assert parse_cpu_max("garbage 1") is None


def test_cfs_by_hand() -> None:
    assert parse_cfs("-1\n", "100000\n") is None
    assert parse_cfs("100000", "100000") == 1
    assert parse_cfs("250000", "100000") == 3
    assert parse_cfs("20000", "10000") == 2
    assert parse_cfs("x", "100000") is None


@given(quota=st.integers(1, 10**9), period=st.integers(1_000, 10**6))
def test_quota_rounds_up_to_whole_cpus(quota: int, period: int) -> None:
    expected = max(1, ceil(Fraction(quota, period)))
    assert parse_cpu_max(f"{quota} {period}") == expected
    assert parse_cfs(str(quota), str(period)) == expected


def test_proc_cgroup_and_mountinfo_parsing() -> None:
    paths = parse_proc_cgroup("12:cpu,cpuacct:/docker/abc\n4:memory:/m\n0::/user.slice\n")
    assert paths == {
        "cpu": "/docker/abc",
        "cpuacct": "/docker/abc",
        "memory": "/m",
        "": "/user.slice",
    }
    [v1, v2] = parse_mountinfo(
        ROOT_MOUNT
        + "35 30 0:31 /docker/abc /sys/fs/cgroup/cpu\\040x rw - cgroup cgroup rw,cpu,cpuacct\n"
        + V2_MOUNT
    )
    assert (v1.version, v1.root, v1.point) == (1, "/docker/abc", "/sys/fs/cgroup/cpu x")
    assert {"cpu", "cpuacct"} <= v1.controllers
    assert (v2.version, v2.root, v2.point) == (2, "/", "/sys/fs/cgroup")


def test_v2_in_a_cgroup_namespace(tmp_path: Path) -> None:
    """Docker and containerd on cgroup v2: the container's own cgroup is the mount's root."""
    root = _lay(
        tmp_path,
        {
            "/proc/self/cgroup": "0::/\n",
            "/proc/self/mountinfo": ROOT_MOUNT + V2_MOUNT,
            "/sys/fs/cgroup/cpu.max": "100000 100000\n",
        },
    )
    assert cgroup_cpu_limit(root) == 1
    (root / "sys/fs/cgroup/cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_limit(root) is None


def test_v2_nested_takes_the_smallest_quota_of_the_ancestors(tmp_path: Path) -> None:
    pod = "/sys/fs/cgroup/kubepods.slice/pod1"
    root = _lay(
        tmp_path,
        {
            "/proc/self/cgroup": "0::/kubepods.slice/pod1/ctr\n",
            "/proc/self/mountinfo": ROOT_MOUNT + V2_MOUNT,
            f"{pod}/cpu.max": "200000 100000\n",
            f"{pod}/ctr/cpu.max": "max 100000\n",
        },
    )
    assert cgroup_cpu_limit(root) == 2  # the pod's limit binds the unlimited container
    (root / pod.lstrip("/") / "ctr/cpu.max").write_text("100000 100000\n")
    assert cgroup_cpu_limit(root) == 1


def test_v1_docker_without_a_cgroup_namespace(tmp_path: Path) -> None:
    """Docker on cgroup v1: /proc/self/cgroup names /docker/<id>, which is mounted at the
    controller's mount point."""
    point = "/sys/fs/cgroup/cpu,cpuacct"
    root = _lay(
        tmp_path,
        {
            "/proc/self/cgroup": "5:cpu,cpuacct:/docker/abc\n0::/system.slice/docker-abc.scope\n",
            "/proc/self/mountinfo": ROOT_MOUNT
            + f"35 30 0:31 /docker/abc {point} ro,nosuid - cgroup cgroup rw,cpu,cpuacct\n",
            f"{point}/cpu.cfs_quota_us": "150000\n",
            f"{point}/cpu.cfs_period_us": "100000\n",
        },
    )
    assert cgroup_cpu_limit(root) == 2
    (root / point.lstrip("/") / "cpu.cfs_quota_us").write_text("-1\n")
    assert cgroup_cpu_limit(root) is None


def test_hybrid_layout_reads_the_v1_cpu_controller(tmp_path: Path) -> None:
    """systemd's hybrid layout: the cpu controller on v1, a v2 tree without cpu.max beside it."""
    root = _lay(
        tmp_path,
        {
            "/proc/self/cgroup": "1:cpu:/\n0::/\n",
            "/proc/self/mountinfo": ROOT_MOUNT
            + "32 31 0:29 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
            + "41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "100000\n",
            "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n",
            "/sys/fs/cgroup/unified/cgroup.procs": "1\n",
        },
    )
    assert cgroup_cpu_limit(root) == 1


def test_no_cgroup_files_means_no_limit(tmp_path: Path) -> None:
    assert cgroup_cpu_limit(tmp_path) is None  # not Linux, or /proc not mounted
    root = _lay(tmp_path, {"/proc/self/cgroup": "0::/\n", "/proc/self/mountinfo": ROOT_MOUNT})
    assert cgroup_cpu_limit(root) is None


def test_usable_cpus_is_the_mask_capped_by_the_quota() -> None:
    assert usable_cpus(8, None) == 8
    assert usable_cpus(8, 1) == 1
    assert usable_cpus(2, 4) == 2
    assert usable_cpus(0, None) == 1


def test_check_processes_auto_reads_the_quota(monkeypatch: pytest.MonkeyPatch) -> None:
    """An 8-core affinity mask inside a one-CPU container: no check process."""
    from monitor.config.settings import load_settings

    monkeypatch.delenv("RAGMON_CHECK_PROCESSES", raising=False)
    monkeypatch.setattr(cpus, "affinity_cpus", lambda: 8)
    monkeypatch.setattr(cpus, "cgroup_cpu_limit", lambda root=None: 1)
    assert load_settings().check_processes == 0
    monkeypatch.setattr(cpus, "cgroup_cpu_limit", lambda root=None: 2)
    assert load_settings().check_processes == 2
    monkeypatch.setattr(cpus, "cgroup_cpu_limit", lambda root=None: None)
    assert load_settings().check_processes == 2
