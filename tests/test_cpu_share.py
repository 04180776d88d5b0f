"""The fair-CPU rule (referee.runtime.cpu_share) and the files it writes in both cgroup layouts.

The v2 layout is checked against a directory tree shaped like ``/sys/fs/cgroup``
(this host's cgroup2 mount carries no cpu controller, so a live v2 group cannot be
made here); the v1 layout is the host's and is checked live when groups can be made.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from referee.runtime import cgroups, cpu_share
from referee.runtime.cpu_share import CpuListError, CpuPlan, format_cpu_list, parse_cpu_list, plan


@pytest.mark.parametrize(
    ("text", "cores"),
    [("0", (0,)), ("0-3", (0, 1, 2, 3)), ("0-1,4,6-7", (0, 1, 4, 6, 7)), ("", ()), ("3,1", (1, 3))],
)
def test_cpu_lists_round_trip(text: str, cores: tuple[int, ...]) -> None:
    assert parse_cpu_list(text) == cores
    assert parse_cpu_list(format_cpu_list(cores)) == cores


@pytest.mark.parametrize("text", ["a", "1-", "3-1", "-2", "0-x"])
def test_bad_cpu_lists_are_refused(text: str) -> None:
    with pytest.raises(CpuListError, match="not a CPU list"):
        parse_cpu_list(text)


def test_each_seat_gets_a_free_core_while_there_are_enough() -> None:
    first = plan(usable=(0, 1), held=(), others=0, cpus=1.0)
    second = plan(usable=(0, 1), held={0}, others=1, cpus=1.0)
    assert first == CpuPlan((0,), pinned=True, quota_cores=1.0, usable=2)
    assert second == CpuPlan((1,), pinned=True, quota_cores=1.0, usable=2)


def test_a_smaller_cap_is_kept_on_a_pinned_core() -> None:
    assert plan(usable=(0, 1), held=(), others=0, cpus=0.25).quota_cores == 0.25


def test_when_cores_are_scarce_seats_share_them_with_a_cap() -> None:
    # Two cores, both held, two other bots: each gets 2/3 of a core at most.
    scarce = plan(usable=(0, 1), held={0, 1}, others=2, cpus=1.0)
    assert (scarce.cores, scarce.pinned) == ((0, 1), False)
    assert scarce.quota_cores == pytest.approx(2 / 3)
    # Never below the floor, however many (possibly idle) bots hold groups.
    crowded = plan(usable=(0, 1), held={0, 1}, others=40, cpus=1.0)
    assert crowded.quota_cores == cpu_share.MIN_SCARCE_CORES


def test_a_bot_allowed_several_cores_is_not_pinned() -> None:
    wide = plan(usable=(0, 1, 2, 3), held=(), others=0, cpus=2.0)
    assert wide == CpuPlan((0, 1, 2, 3), pinned=False, quota_cores=2.0, usable=4)


def test_without_a_cpuset_cores_are_scarce_once_bots_outnumber_them() -> None:
    enough = plan(usable=(0, 1), held=(), others=1, cpus=1.0, can_pin=False)
    assert enough == CpuPlan((0, 1), pinned=False, quota_cores=1.0, usable=2)
    scarce = plan(usable=(0, 1), held=(), others=3, cpus=1.0, can_pin=False)
    assert scarce.quota_cores == pytest.approx(0.5)


def fake_v2_root(tmp_path: Path, controllers: str) -> Path:
    root = tmp_path / "cgroup"
    root.mkdir()
    (root / "cgroup.controllers").write_text(controllers + "\n")
    (root / "cgroup.subtree_control").write_text("")
    parent = root / cgroups.GROUP
    parent.mkdir()
    (parent / "cgroup.subtree_control").write_text("")
    (parent / "cpuset.cpus.effective").write_text(format_cpu_list(os.sched_getaffinity(0)))
    return root


def test_v2_groups_get_equal_weight_and_distinct_cores(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_v2_root(tmp_path, "cpuset cpu io memory pids")
    monkeypatch.setattr(cgroups, "ROOT", root)
    usable = sorted(os.sched_getaffinity(0))
    groups = [cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0) for _ in usable]
    (path,) = groups[0].paths
    assert path.parent == root / cgroups.GROUP
    assert (path / "cpu.weight").read_text() == str(cpu_share.WEIGHT_V2)
    assert (path / "cpu.max").read_text() == f"100000 {cgroups.CFS_PERIOD_US}"
    assert (path / "memory.max").read_text() == str(64 << 20)
    assert (path / "pids.max").read_text() == "8"
    pinned = [int((g.paths[0] / "cpuset.cpus").read_text()) for g in groups]
    assert sorted(pinned) == usable  # one core each, none shared
    names = [g.paths[0].name for g in groups]
    assert all(n.endswith(f"-core{c}") for n, c in zip(names, pinned, strict=True)), names
    assert "+cpuset" in (root / "cgroup.subtree_control").read_text()
    # The bots' parent weighs one seat per core (cpu_share rule 4).
    weight = (root / cgroups.GROUP / "cpu.weight").read_text()
    assert weight == str(cpu_share.WEIGHT_V2 * len(usable))
    # One more bot than cores: not pinned, every core, a bandwidth cap.
    extra = cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0)
    (extra_path,) = extra.paths
    assert (extra_path / "cpuset.cpus").read_text() == format_cpu_list(usable)
    quota = max(cpu_share.MIN_SCARCE_CORES, len(usable) / (len(usable) + 1))
    assert (extra_path / "cpu.max").read_text() == f"{int(quota * 100000)} 100000"


def test_v2_without_cpuset_still_weighs_seats_equally(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_v2_root(tmp_path, "cpu memory pids")
    monkeypatch.setattr(cgroups, "ROOT", root)
    (path,) = cgroups.create(memory_mb=64, max_tasks=8, cpus=0.5).paths
    assert (path / "cpu.weight").read_text() == str(cpu_share.WEIGHT_V2)
    assert (path / "cpu.max").read_text() == "50000 100000"
    assert not (path / "cpuset.cpus").exists()


def test_v2_guard_setting_gives_the_groups_of_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = fake_v2_root(tmp_path, "cpuset cpu memory pids")
    monkeypatch.setattr(cgroups, "ROOT", root)
    monkeypatch.setattr(cgroups, "CPU_SHARING", "before")
    (path,) = cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0).paths
    assert (path / "cpu.max").read_text() == "100000 100000"
    assert not (path / "cpu.weight").exists() and not (path / "cpuset.cpus").exists()
    assert (root / cgroups.GROUP / "cpu.weight").read_text() == str(cpu_share.WEIGHT_V2)


needs_groups = pytest.mark.skipif(
    cgroups.available() is not None or not (cgroups.ROOT / "cpu" / "cgroup.procs").exists(),
    reason="needs cgroup v1 bot groups on this host",
)


@needs_groups
def test_v1_groups_on_this_host_get_shares_and_a_cpuset() -> None:
    group = cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0)
    try:
        by_controller = {path.parent.parent.name: path for path in group.paths}
        assert (by_controller["cpu"] / "cpu.shares").read_text().strip() == "1024"
        burst = by_controller["cpu"] / "cpu.cfs_burst_us"
        if burst.exists():  # kernels since 5.14: an idle bot may spend one period's saving
            quota = (by_controller["cpu"] / "cpu.cfs_quota_us").read_text()
            assert burst.read_text() == quota
        parent_shares = (by_controller["cpu"].parent / "cpu.shares").read_text().strip()
        assert int(parent_shares) >= 1024
        if "cpuset" in by_controller:
            cores = parse_cpu_list((by_controller["cpuset"] / "cpuset.cpus").read_text())
            assert cores and set(cores) <= os.sched_getaffinity(0)
            assert (by_controller["cpuset"] / "cpuset.mems").read_text().strip()
    finally:
        assert group.remove()


@needs_groups
def test_v1_seats_get_distinct_cores_then_share_them_capped() -> None:
    usable = set(os.sched_getaffinity(0))
    groups: list[cgroups.BotCgroup] = []
    try:
        for _ in range(len(usable) + 1):
            groups.append(cgroups.create(memory_mb=64, max_tasks=8, cpus=1.0))
        by_group = [{path.parent.parent.name: path for path in g.paths} for g in groups]
        if not all("cpuset" in paths for paths in by_group):
            pytest.skip("no cgroup v1 cpuset hierarchy here")
        cores = [parse_cpu_list((p["cpuset"] / "cpuset.cpus").read_text()) for p in by_group]
        pinned = [c[0] for c, g in zip(cores, groups, strict=True) if "-core" in g.paths[0].name]
        assert len(pinned) == len(set(pinned)), cores  # never two seats on one core
        # One more bot than cores: the last is not pinned, runs anywhere, is capped.
        assert "-core" not in groups[-1].paths[0].name
        assert set(cores[-1]) == usable
        quota = int((by_group[-1]["cpu"] / "cpu.cfs_quota_us").read_text())
        assert cpu_share.MIN_SCARCE_CORES * 100_000 <= quota <= 100_000
    finally:
        assert all(g.remove() for g in groups)
