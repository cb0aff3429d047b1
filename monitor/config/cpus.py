"""How many CPUs this process may really use: the affinity mask and the cgroup CPU quota.

A container limited with `docker run --cpus 1` or a Kubernetes `limits.cpu: 1` still sees
every core of the node in its affinity mask; the limit is a CFS quota in its cgroup
(`cpu.max` on cgroup v2, `cpu.cfs_quota_us` / `cpu.cfs_period_us` on v1). Deciding from the
mask alone would start a check process that can only steal time from the worker.

The parsers are pure; `cgroup_cpu_limit` reads the files below a root directory, so tests lay
out fake `/proc/self/cgroup`, `/proc/self/mountinfo` and cgroup files in a temporary folder.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

# A quota is a number of microseconds per period; a fraction of a CPU above a whole one still
# lets a second process run (a single Python process cannot use it), so limits round up.


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


def parse_cpu_max(text: str) -> int | None:
    """cgroup v2 `cpu.max` ("QUOTA PERIOD" or "max PERIOD") → whole CPUs, None if unlimited."""
    parts = text.split()
    if not parts or parts[0] == "max":
        return None
    try:
        quota = int(parts[0])
        period = int(parts[1]) if len(parts) > 1 else 100_000
    except ValueError:
        return None
    if quota <= 0 or period <= 0:
        return None
    return max(1, _ceil_div(quota, period))


def parse_cfs(quota_text: str, period_text: str) -> int | None:
    """cgroup v1 `cpu.cfs_quota_us` and `cpu.cfs_period_us` → whole CPUs, None if unlimited
    (a quota of -1)."""
    try:
        quota, period = int(quota_text.strip()), int(period_text.strip())
    except ValueError:
        return None
    if quota <= 0 or period <= 0:
        return None
    return max(1, _ceil_div(quota, period))


@dataclass(frozen=True)
class Mount:
    """A cgroup hierarchy as mounted: which of its paths (`root`) appears at `point`."""

    version: int  # 1 or 2
    root: str
    point: str
    controllers: frozenset[str]


_OCTAL = re.compile(r"\\([0-7]{3})")


def _unescape(field: str) -> str:
    # mountinfo writes space, tab, newline and backslash as octal escapes (\040 ...)
    return _OCTAL.sub(lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> list[Mount]:
    """The cgroup and cgroup2 mounts of `/proc/self/mountinfo` (proc(5) gives the format)."""
    mounts: list[Mount] = []
    for line in text.splitlines():
        fields = line.split()
        if "-" not in fields:
            continue
        sep = fields.index("-")
        if sep < 5 or len(fields) < sep + 2:
            continue
        fstype = fields[sep + 1]
        root, point = _unescape(fields[3]), _unescape(fields[4])
        if fstype == "cgroup2":
            mounts.append(Mount(2, root, point, frozenset()))
        elif fstype == "cgroup":
            options = fields[sep + 3].split(",") if len(fields) > sep + 3 else []
            mounts.append(Mount(1, root, point, frozenset(options)))
    return mounts


def parse_proc_cgroup(text: str) -> dict[str, str]:
    """`/proc/self/cgroup` → path per controller; the v2 hierarchy is under the key ""."""
    paths: dict[str, str] = {}
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        if controllers == "":
            paths[""] = path
        for controller in controllers.split(","):
            if controller:
                paths[controller] = path
    return paths


def _dirs(mount: Mount, cgroup_path: str) -> list[PurePosixPath]:
    """The process's cgroup directory under the mount and each ancestor up to the mount point
    (a parent's quota limits its children too)."""
    path = PurePosixPath(cgroup_path)
    root = PurePosixPath(mount.root)
    try:
        rel = path.relative_to(root)
    except ValueError:
        # the path is outside what is mounted (a cgroup namespace shows "/"): the mount point
        # itself is the process's cgroup
        rel = PurePosixPath(".")
    dirs = [PurePosixPath(mount.point) / rel]
    while dirs[-1] != PurePosixPath(mount.point) and len(dirs) < 64:
        dirs.append(dirs[-1].parent)
    return dirs


def _read(root: Path, path: PurePosixPath, name: str) -> str | None:
    try:
        return (root / str(path / name).lstrip("/")).read_text(encoding="ascii")
    except (OSError, UnicodeDecodeError):
        return None


def cgroup_cpu_limit(root: Path = Path("/")) -> int | None:
    """Whole CPUs the cgroup CPU quota allows this process (the smallest over its cgroup and
    its ancestors, v1 and v2 alike), or None when no quota is set or none can be read."""
    proc_cgroup = _read(root, PurePosixPath("/proc/self"), "cgroup")
    mountinfo = _read(root, PurePosixPath("/proc/self"), "mountinfo")
    if proc_cgroup is None or mountinfo is None:
        return None
    paths = parse_proc_cgroup(proc_cgroup)
    limits: list[int] = []
    for mount in parse_mountinfo(mountinfo):
        if mount.version == 2 and "" in paths:
            for d in _dirs(mount, paths[""]):
                text = _read(root, d, "cpu.max")
                limit = parse_cpu_max(text) if text is not None else None
                if limit is not None:
                    limits.append(limit)
        elif mount.version == 1 and "cpu" in mount.controllers and "cpu" in paths:
            for d in _dirs(mount, paths["cpu"]):
                quota = _read(root, d, "cpu.cfs_quota_us")
                period = _read(root, d, "cpu.cfs_period_us")
                limit = parse_cfs(quota, period) if quota and period else None
                if limit is not None:
                    limits.append(limit)
    return min(limits) if limits else None


def affinity_cpus() -> int:
    """CPUs in this process's affinity mask (what taskset and cpuset narrow)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def usable_cpus(affinity: int, quota: int | None) -> int:
    """The CPUs a process may use: its affinity mask, capped by the cgroup quota if any."""
    return max(1, affinity if quota is None else min(affinity, quota))
