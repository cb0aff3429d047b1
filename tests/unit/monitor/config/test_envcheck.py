"""Typo'd RAGMON_* variables are reported with the closest name; errors name the variable."""

from __future__ import annotations

import pytest

from monitor.config.envcheck import UnknownVariable, env_name, unknown_variables
from monitor.config.errors import ConfigError
from monitor.config.settings import known_variables, load_settings, server_problem


def test_a_typo_is_reported_with_the_closest_known_name() -> None:
    environ = {
        "RAGMON_BOOTSTRAP_SERVER": "k:9092",  # the typo of the issue
        "RAGMON_PARTITIONS": "4",  # known
        "RAGMON_ZZZ_NOTHING_LIKE_IT": "1",
        "PATH": "/bin",  # not ours
        "RAGMON_BENCH_RUNS": "3",  # bench tooling
        "RAGMON_CONFIG_FILE": "x.yaml",
    }
    assert unknown_variables(environ, known_variables()) == [
        UnknownVariable("RAGMON_BOOTSTRAP_SERVER", "RAGMON_BOOTSTRAP_SERVERS"),
        UnknownVariable("RAGMON_ZZZ_NOTHING_LIKE_IT", None),
    ]
    assert (
        UnknownVariable("RAGMON_BOOTSTRAP_SERVER", "RAGMON_BOOTSTRAP_SERVERS").message()
        == "unknown variable RAGMON_BOOTSTRAP_SERVER is ignored "
        "(did you mean RAGMON_BOOTSTRAP_SERVERS?)"
    )


def test_every_setting_has_its_variable_known() -> None:
    known = known_variables()
    assert {"RAGMON_PARTITIONS", "RAGMON_SASL_PASSWORD", "OPENAI_API_KEY"} <= known
    assert env_name("metrics_port") == "RAGMON_METRICS_PORT"


def test_a_validation_error_names_the_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RAGMON_PARTITIONS", "0")
    with pytest.raises(ConfigError, match=r"RAGMON_PARTITIONS \(partitions\): .*greater than"):
        load_settings()


@pytest.mark.parametrize(
    ("server", "problem"),
    [
        ("http://host:9092", "http:// is not a Kafka address"),
        ("https://host:9092", "https:// is not a Kafka address"),
        ("host", "expected host:port"),
        ("host:", "port '' is not a number"),
        ("host:70000", "port '70000' is not a number"),
        (":9092", "expected host:port"),
        ("host:9092/path", "expected host:port"),
    ],
)
def test_malformed_servers_are_named(server: str, problem: str) -> None:
    assert (server_problem(server) or "").startswith(problem)
    with pytest.raises(ConfigError, match=r"RAGMON_BOOTSTRAP_SERVERS .*malformed server"):
        load_settings(bootstrap_servers=f"ok:9092,{server}")


@pytest.mark.parametrize("server", ["k:9092", "kafka://k:9092", "10.0.0.1:1", "[::1]:9092"])
def test_wellformed_servers_pass(server: str) -> None:
    assert server_problem(server) is None
    assert load_settings(bootstrap_servers=server).bootstrap_servers == server


def test_every_variable_read_outside_the_settings_is_known_tooling() -> None:
    """Each RAGMON_* name the code, the tests or the build scripts read from the environment
    directly is a setting's or is listed as tooling: otherwise `ragmon` warns "unknown
    variable ... is ignored" about a variable that is read."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[4]
    read = re.compile(r"""(?:environ\.get\(|getenv\(|environ\[)\s*["'](RAGMON_[A-Z0-9_]+)""")
    shell = re.compile(r"\$\{?(RAGMON_[A-Z0-9_]+)")
    found: dict[str, str] = {}
    for folder in ("agents", "monitor", "tests"):
        for path in (root / folder).rglob("*.py"):
            for name in read.findall(path.read_text(encoding="utf-8")):
                found.setdefault(name, str(path.relative_to(root)))
    for path in [root / "Makefile", *(root / ".ci").glob("*.sh")]:
        for name in shell.findall(path.read_text(encoding="utf-8")):
            found.setdefault(name, str(path.relative_to(root)))
    assert "RAGMON_SOAK_SECONDS" in found and "RAGMON_WHEELS" in found  # the scan sees them
    unknown = unknown_variables(dict.fromkeys(found, ""), known_variables())
    assert [(u.name, found[u.name]) for u in unknown] == []
