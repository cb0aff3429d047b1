"""Topic specs, the traffic generator, the embedded broker's command line, log de-duplication
and the demo's summary rendering."""

from __future__ import annotations

import json
import logging
import random

import pytest

from agents.demo.display import DLQ_NOTE, OTHER_NOTE, final_summary, render
from agents.demo.run import DemoConfig
from agents.demo.traffic import Mix, Traffic, make_answer
from agents.kafka.broker import EMBEDDED_TIMEOUTS, EmbeddedBroker, embedded_env
from agents.kafka.topics import ROLES, topic_specs
from agents.stream.runner import RepeatFilter
from monitor.config.errors import ConfigError
from monitor.config.settings import load_settings


def test_topic_specs_names_and_partitions() -> None:
    specs = topic_specs(
        load_settings(
            topic_prefix="p.",
            answers_topic="rag-answers",
            partitions=3,
            topic_names={"dlq": "dead"},
            topic_partitions={"scores": 8},
        )
    )
    assert list(specs) == list(ROLES)
    assert specs["answers"].name == "p.rag-answers"
    assert specs["dlq"].name == "p.dead"
    assert specs["judge-requests"].name == "p.judge-requests"
    assert specs["scores"].partitions == 8 and specs["audit"].partitions == 3
    with pytest.raises(ConfigError, match="unknown topic role"):
        topic_specs(load_settings(topic_names={"answer": "x"}))


def test_check_processes_auto_follows_the_usable_cpus(monkeypatch: pytest.MonkeyPatch) -> None:
    import monitor.config.settings as settings_module

    monkeypatch.delenv("RAGMON_CHECK_PROCESSES", raising=False)
    for cpus, expected in ((1, 0), (2, 2), (16, 2)):
        monkeypatch.setattr(settings_module, "usable_cpus", lambda cpus=cpus: cpus)
        assert load_settings().check_processes == expected
        assert load_settings(check_processes="Auto").check_processes == expected
        assert load_settings(check_processes=3).check_processes == 3
    monkeypatch.setenv("RAGMON_CHECK_PROCESSES", "auto")
    assert load_settings().check_processes == 2
    monkeypatch.setenv("RAGMON_CHECK_PROCESSES", "0")
    assert load_settings().check_processes == 0
    with pytest.raises(ConfigError, match="check_processes"):
        load_settings(check_processes="many")


def test_traffic_events_are_valid_and_drift_breaks_citations() -> None:
    from monitor.inputs.decode import decode_event
    from monitor.records.models import AnswerEvent

    options = load_settings().check_options()
    rng = random.Random(5)
    for drift in (0.0, 1.0):
        for i in range(50):
            decoded = decode_event(json.dumps(make_answer(rng, f"t-{i}", drift)).encode(), options)
            assert isinstance(decoded, AnswerEvent), decoded
    healthy, drifted = Mix.at(0), Mix.at(1)
    assert healthy.bad_citation < 0.05 < 0.2 < drifted.bad_citation
    assert healthy.fabricated < drifted.fabricated and healthy.uncited < drifted.uncited
    assert Mix.at(5) == drifted  # clamped


def test_traffic_drift_worsens_the_checked_figures() -> None:
    check = pytest.importorskip("monitor.check")
    options = load_settings().check_options()

    def invalid_share(drift: float) -> float:
        traffic, total, invalid = Traffic(seed=3), 0, 0
        for _ in range(150):
            verdict = check.check_bytes(traffic.next(drift), options)
            for c in getattr(verdict, "citations", ()):
                total += 1
                invalid += not c.valid
        return invalid / total

    assert invalid_share(0.0) < 0.05 < 0.15 < invalid_share(1.0)


def test_traffic_ids_are_unique_and_some_records_are_malformed() -> None:
    traffic = Traffic(seed=1, prefix="x")
    values = [traffic.next(0.0) for _ in range(2000)]
    ids = [json.loads(v)["event_id"] for v in values if v.endswith(b"}")]
    assert len(ids) == len(set(ids)) and ids[0] == "x-00000001"
    assert 0 < sum(not v.endswith(b"}") for v in values) < 20


def test_demo_drift_schedule() -> None:
    config = DemoConfig(healthy_seconds=10, ramp_seconds=20)
    assert [config.drift(t) for t in (0, 9.9, 10, 20, 30, 99)] == [0, 0, 0, 0.5, 1, 1]


def test_embedded_broker_command_and_env() -> None:
    broker = EmbeddedBroker(port=19999, binary="/bin/tansu")
    assert broker.command() == [
        "/bin/tansu", "broker",
        "--listener-url", "tcp://127.0.0.1:19999",
        "--advertised-listener-url", "tcp://127.0.0.1:19999",
        "--storage-engine", "memory://tansu/",
    ]  # fmt: skip
    env = embedded_env(broker.bootstrap)
    assert env["RAGMON_BOOTSTRAP_SERVERS"] == "127.0.0.1:19999"
    assert (
        float(env["RAGMON_BROKER_SESSION_TIMEOUT"]) == EMBEDDED_TIMEOUTS["broker_session_timeout"]
    )
    settings = load_settings(**{k.removeprefix("RAGMON_").lower(): v for k, v in env.items()})
    assert settings.broker_heartbeat_interval == 1.5
    # tansu answers a fetch at the end of its wait: a short one (an int setting, read as such)
    assert env["RAGMON_FETCH_MAX_WAIT_MS"] == "100"
    assert settings.fetch_max_wait_ms == 100 < load_settings().fetch_max_wait_ms


def test_repeat_filter_lets_a_message_through_once_per_interval() -> None:
    f = RepeatFilter(interval=30)

    def rec(msg: str, exc: bool = False) -> logging.LogRecord:
        exc_info = (ValueError, ValueError("x"), None) if exc else None
        return logging.LogRecord("aiokafka.x", logging.ERROR, __file__, 1, msg, (), exc_info)

    assert f.filter(rec("Unable connect to node 1"))
    assert not f.filter(rec("Unable connect to node 1"))
    assert f.filter(rec("another message"))
    with_traceback = rec("boom", exc=True)
    assert f.filter(with_traceback) and with_traceback.exc_info is None


def test_demo_summary_rendering() -> None:
    metrics = {
        "ragmon_events_total": [({"app": "search", "outcome": "checked"}, 40.0)],
        "ragmon_dlq_total": [({"reason": "invalid_json"}, 2.0)],
        "ragmon_window_events": [({"app": "search"}, 30.0), ({"app": "other"}, 2.0)],
        "ragmon_validity_ratio": [({"app": "search"}, 0.9)],
        "ragmon_alert_firing": [
            ({"rule": "validity_low", "app": "search"}, 1.0),
            ({"rule": "coverage_low", "app": "search"}, 0.0),
        ],
    }
    lines = render(metrics, "drift 50%", 45)
    assert "checked: 40" in lines[0] and "dead letters: 2" in lines[0]
    assert lines[2].split()[:3] == ["other", "2", "-"]
    assert lines[3].split()[:3] == ["search", "30", "0.900"]
    assert lines[4] == OTHER_NOTE  # the "other" row explained
    assert DLQ_NOTE not in lines  # in the drift phase dead letters need no excuse
    assert lines[-1] == "alerts firing: validity_low[search]"
    healthy = render(metrics, "healthy", 45)
    assert DLQ_NOTE in healthy and OTHER_NOTE in healthy


def test_demo_final_summary() -> None:
    metrics = {
        "ragmon_events_total": [
            ({"app": "search", "outcome": "checked"}, 40.0),
            ({"app": "other", "outcome": "rejected"}, 3.0),
            ({"app": "chat", "outcome": "checked"}, 2.0),
        ],
        "ragmon_dlq_total": [
            ({"reason": "invalid_json"}, 2.0),
            ({"reason": "schema_violation"}, 1.0),
            ({"reason": "empty"}, 0.0),
        ],
    }
    lines = final_summary(metrics, sent=50, seconds=61.4, fired={"b[x]", "a[y]"})
    assert lines == [
        "summary: 61 s, 50 events sent, 42 checked",
        "  dead letters: 2 invalid_json, 1 schema_violation",
        "  alerts that fired: a[y], b[x]",
    ]
    assert final_summary({}, sent=0, seconds=0, fired=set())[1:] == [
        "  dead letters: none",
        "  alerts that fired: none",
    ]


def test_check_help_auto_fills_an_idle_cpu_only(monkeypatch: pytest.MonkeyPatch) -> None:
    import monitor.config.settings as settings_module

    monkeypatch.delenv("RAGMON_CHECK_HELP", raising=False)
    monkeypatch.delenv("RAGMON_CHECK_PROCESSES", raising=False)
    # (usable CPUs, check processes) → helps: only where worker + processes leave a CPU idle
    cases = {(2, 1): True, (2, 2): False, (4, 2): True, (4, 3): True, (4, 4): False, (1, 0): False}
    for (cpus, processes), expected in cases.items():
        monkeypatch.setattr(settings_module, "usable_cpus", lambda cpus=cpus: cpus)
        assert load_settings(check_processes=processes).check_help is expected, (cpus, processes)
    monkeypatch.setattr(settings_module, "usable_cpus", lambda: 2)
    assert load_settings().check_help is False  # auto: two check processes on two CPUs
    monkeypatch.setenv("RAGMON_CHECK_HELP", "true")
    assert load_settings().check_help is True
    monkeypatch.setenv("RAGMON_CHECK_HELP", "auto")
    assert load_settings(check_processes=1).check_help is True
    with pytest.raises(ConfigError, match="check_help"):
        load_settings(check_help="sometimes")
