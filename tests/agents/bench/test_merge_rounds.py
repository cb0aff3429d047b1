"""`merge_rounds`: one-round results of the e2e bench, each on its own broker, read as one."""

from __future__ import annotations

from agents.bench.e2e import merge_rounds


def _part(pt: float, mon: float, cpu: float) -> dict[str, object]:
    return {
        "throughput_events": 10_000,
        "rounds": 1,
        "passthrough_events_per_s": pt,
        "rounds_passthrough_events_per_s": [pt],
        "monitor_pool_events_per_s": mon,
        "rounds_monitor_pool_events_per_s": [mon],
        "rounds_monitor_pool_ratio": [mon / pt],
        "monitor_pool_vs_passthrough": mon / pt,
        "monitor_pool_cpu_us_per_event": cpu,
        "monitor_pool_check_processes": 1,
        "judge": {"delay_seconds": 2.0, "sample_rate": 0.1},
    }


def test_lists_join_in_order_and_figures_are_medians_of_the_rounds() -> None:
    parts = [_part(3000, 2400, 560), _part(3200, 2880, 540), _part(2500, 2000, 600)]
    out = merge_rounds(parts)
    assert out["rounds"] == 3
    assert out["rounds_passthrough_events_per_s"] == [3000, 3200, 2500]
    # ratios 0.8, 0.9, 0.8: their median, not the ratio of the median rates (2400 / 3000 = 0.8)
    assert out["rounds_monitor_pool_ratio"] == [0.8, 0.9, 0.8]
    assert out["monitor_pool_vs_passthrough"] == 0.8
    assert out["passthrough_events_per_s"] == 3000
    assert out["monitor_pool_events_per_s"] == 2400
    assert out["monitor_pool_cpu_us_per_event"] == 560
    # what does not vary is taken as it is
    assert out["throughput_events"] == 10_000
    assert out["monitor_pool_check_processes"] == 1
    assert out["judge"] == {"delay_seconds": 2.0, "sample_rate": 0.1}


def test_an_even_number_of_rounds_takes_the_middle_pair() -> None:
    out = merge_rounds([_part(3000, 2400, 500), _part(3000, 2700, 600)])
    assert out["monitor_pool_vs_passthrough"] == (0.8 + 0.9) / 2
    assert out["monitor_pool_cpu_us_per_event"] == 550
