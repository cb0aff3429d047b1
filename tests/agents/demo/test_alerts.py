from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.demo.alerts import AlertLog, alert_lines
from agents.demo.display import final_summary, render
from agents.demo.run import SCRIPTED_JUDGE, Demo, DemoConfig

LINK = "http://127.0.0.1:6066/evidence?app=search&rule=hallucination_high&from=1800000000&to=1800000075"
FIGURES = "hallucination 0.174 (95% interval 0.162-0.192, 353 judged claims)"


def line(event: str, rule: str = "hallucination_high", app: str = "search", **kw: Any) -> str:
    entry = {"event": event, "rule": rule, "app": app, "level": "warning", **kw}
    return json.dumps(entry) + "\n"


def firing(**kw: Any) -> str:
    return line(
        "alert firing", figures=FIGURES, threshold=0.1, since=1_800_000_060.0, evidence=LINK, **kw
    )


def test_the_alert_log_follows_firing_and_resolved_lines_as_they_are_written(
    tmp_path: Path,
) -> None:
    path = tmp_path / "worker.log"
    log = AlertLog(path)
    log.read()  # no file yet: nothing, no error
    path.write_text('{"event": "worker starting"}\nnot json\n' + firing()[:40])
    log.read()
    assert log.firing == {}  # the half-written line waits for its end
    with open(path, "a") as out:
        out.write(firing()[40:] + line("alert firing", rule="validity_low", figures="validity 0.8"))
    log.read()
    assert set(log.firing) == {"hallucination_high[search]", "validity_low[search]"}
    with open(path, "a") as out:
        out.write(line("alert resolved", rule="validity_low"))
    log.read()
    assert set(log.firing) == {"hallucination_high[search]"}
    assert set(log.fired) == {"hallucination_high[search]", "validity_low[search]"}


def test_each_firing_alert_is_shown_with_its_figure_and_link(tmp_path: Path) -> None:
    log = AlertLog(tmp_path / "worker.log")
    log.take(firing())
    metrics = {
        "ragmon_alert_firing": [
            ({"rule": "hallucination_high", "app": "search"}, 1.0),
            ({"rule": "validity_low", "app": "search"}, 1.0),  # its line not read yet
        ]
    }
    lines = render(metrics, "drift 50%", 45, log)
    at = lines.index("alerts firing: hallucination_high[search], validity_low[search]")
    assert lines[at + 1 :] == [
        f"  hallucination_high[search]: fired 08:01:00 UTC at {FIGURES} (threshold 0.1)",
        f"    evidence: {LINK}",
        "  validity_low[search]: (its log line not read yet)",
    ]
    summary = final_summary({}, sent=1, seconds=1, fired={"hallucination_high[search]"}, alerts=log)
    assert summary[-2:] == [
        "  " + s
        for s in alert_lines("hallucination_high[search]", log.fired["hallucination_high[search]"])
    ]
    assert summary[-1] == f"      evidence: {LINK}"


def test_the_demo_judge_is_named_as_what_it_is_and_costs_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agents.judging.fake_server import JudgeHTTPServer
    from monitor.config.settings import load_settings

    demo = Demo(DemoConfig(workdir=str(tmp_path), metrics_port=0))
    demo.judge = JudgeHTTPServer()  # not started: only its address is read
    env = demo.worker_env("127.0.0.1:9")
    assert env["RAGMON_JUDGE_MODEL"] == SCRIPTED_JUDGE == "scripted-judge"
    keys = ("RAGMON_JUDGE_MODEL", "RAGMON_JUDGE_PRICES", "RAGMON_ESCALATION_MODEL")
    for key in keys:  # as the worker reads them: from its environment
        monkeypatch.setenv(key, env[key])
    settings = load_settings()
    assert settings.judge_prices == {} and settings.escalation_model == ""
