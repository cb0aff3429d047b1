"""deploy/ and dashboards/: promtool, schema-validated Kubernetes manifests, compose sanity,
Grafana provisioning consistency, and generated files kept in step with the rules."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from referencing import Registry, Resource

from agents.grafana.render import render_files
from monitor.alerting.alerts import load_rules, parse_rules
from monitor.config.settings import Settings

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
SCHEMAS = Path(__file__).with_name("schemas")
PROMTOOL = shutil.which("promtool")
# A developer without promtool skips; CI (CI=true) installs it, so there a missing one fails.
needs_promtool = pytest.mark.skipif(
    PROMTOOL is None and not os.environ.get("CI"),
    reason="promtool not installed (Debian package `prometheus`, `make system-deps`)",
)


def _docs(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text(encoding="utf-8")) if d]


def _promtool(*args: str) -> subprocess.CompletedProcess[str]:
    assert PROMTOOL is not None, "promtool not installed (CI=true: `make system-deps` must)"
    return subprocess.run(
        [PROMTOOL, *args], cwd=DEPLOY / "prometheus", capture_output=True, text=True, timeout=120
    )


# --- Prometheus ------------------------------------------------------------------------------


@needs_promtool
def test_promtool_check_rules() -> None:
    out = _promtool("check", "rules", "rules.yml")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "SUCCESS: 18 rules found" in out.stdout


@needs_promtool
def test_promtool_test_rules() -> None:
    out = _promtool("test", "rules", "rules_test.yml")
    assert out.returncode == 0, out.stdout + out.stderr


@needs_promtool
def test_promtool_check_config() -> None:
    out = _promtool("check", "config", "prometheus.yml")
    assert out.returncode == 0, out.stdout + out.stderr


def test_every_alert_has_a_firing_and_a_quiet_case() -> None:
    alerts = {
        r["alert"]
        for g in _docs(DEPLOY / "prometheus/rules.yml")[0]["groups"]
        for r in g["rules"]
        if "alert" in r
    }
    tests = yaml.safe_load((DEPLOY / "prometheus/rules_test.yml").read_text())["tests"]
    firing: set[str] = set()
    quiet: set[str] = set()
    for test in tests:
        for case in test.get("alert_rule_test", []):
            (firing if case["exp_alerts"] else quiet).add(case["alertname"])
    assert alerts == firing == quiet


# --- files generated from the rules ------------------------------------------------------------


def test_generated_files_match_the_default_rules() -> None:
    """`ragmon grafana render` output is what is checked in (re-render after changing rules)."""
    for rel, text in render_files(load_rules()).items():
        assert (ROOT / rel).read_text(encoding="utf-8") == text, (
            f"{rel} is stale: run `ragmon grafana render`"
        )


def test_k8s_rules_configmap_matches_the_defaults() -> None:
    [_, rules_cm] = _docs(DEPLOY / "k8s/configmap.yaml")
    shipped = parse_rules(rules_cm["data"]["rules.yaml"])
    defaults = load_rules()

    def key(rules: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        return [
            (
                r.name,
                r.figure,
                r.op,
                r.threshold,
                r.resolve_threshold,
                r.window_seconds,
                r.min_events,
                r.for_seconds,
                r.severity,
                r.apps,
                r.level,
                r.keep_firing_for,
            )
            for r in rules
        ]

    assert key(shipped) == key(defaults)


# --- Kubernetes ---------------------------------------------------------------------------------


def _registry() -> Registry:
    resources = [
        (p.name, Resource.from_contents(json.loads(p.read_text())))
        for p in SCHEMAS.glob("*.schema.json")
    ]
    return Registry().with_resources(resources)


def _validator(kind: str) -> jsonschema.Draft7Validator:
    path = SCHEMAS / f"{kind}.schema.json"
    assert path.is_file(), f"no schema for kind {kind}"
    schema = json.loads(path.read_text())
    return jsonschema.Draft7Validator(schema, registry=_registry())


def _k8s() -> list[tuple[str, dict[str, Any]]]:
    return [(p.name, doc) for p in sorted((DEPLOY / "k8s").glob("*.yaml")) for doc in _docs(p)]


def test_k8s_manifests_validate_against_their_schemas() -> None:
    kinds = []
    for name, doc in _k8s():
        errors = [
            f"{name} {'/'.join(map(str, e.path))}: {e.message}"
            for e in _validator(doc["kind"]).iter_errors(doc)
        ]
        assert errors == []
        kinds.append(doc["kind"])
    assert sorted(kinds) == [
        "ConfigMap",
        "ConfigMap",
        "Deployment",
        "Kustomization",
        "Service",
    ]


def test_k8s_schema_validator_catches_mistakes() -> None:
    [deployment] = [d for _, d in _k8s() if d["kind"] == "Deployment"]
    broken = json.loads(json.dumps(deployment))
    container = broken["spec"]["template"]["spec"]["containers"][0]
    container["resource"] = container.pop("resources")  # typo
    container["ports"][0]["containerPort"] = "6066"  # string
    messages = [e.message for e in _validator("Deployment").iter_errors(broken)]
    assert any("'resource' was unexpected" in m for m in messages)
    assert any("'6066' is not of type 'integer'" in m for m in messages)


def test_k8s_objects_fit_together() -> None:
    docs = {
        (d["kind"], d["metadata"]["name"]): d for _, d in _k8s() if d["kind"] != "Kustomization"
    }
    dep = docs[("Deployment", "ragmon-worker")]
    pod = dep["spec"]["template"]
    labels = pod["metadata"]["labels"]
    assert dep["spec"]["selector"]["matchLabels"].items() <= labels.items()
    svc = docs[("Service", "ragmon-worker")]
    assert svc["spec"]["selector"].items() <= labels.items()
    [container] = pod["spec"]["containers"]
    ports = {p["name"]: p["containerPort"] for p in container["ports"]}
    assert svc["spec"]["ports"][0]["targetPort"] in ports
    # no prometheus.io/* annotations: the annotation jobs would scrape the pods a second time
    # under another job name than `ragmon` (tests/deploy/test_kustomize.py)
    for obj in (pod, svc):
        assert not any(
            k.startswith("prometheus.io/") for k in obj["metadata"].get("annotations", {})
        )
    env = {e["name"]: e for e in container["env"]}
    assert int(env["RAGMON_METRICS_PORT"]["value"]) == ports["metrics"]
    assert env["RAGMON_METRICS_HOST"]["value"] == "0.0.0.0"  # reachable by Prometheus
    for name in (
        "RAGMON_GRAFANA_TOKEN",
        "RAGMON_SASL_PASSWORD",
        "OPENAI_API_KEY",
        "RAGMON_EVIDENCE_TOKEN",  # the page's token: the pod binds 0.0.0.0
    ):
        assert env[name]["valueFrom"]["secretKeyRef"]["name"] == "ragmon-secrets", name
    assert {"cpu", "memory"} <= container["resources"]["requests"].keys()
    for ref in container["envFrom"]:
        assert ("ConfigMap", ref["configMapRef"]["name"]) in docs
    for vol in pod["spec"]["volumes"]:
        if "configMap" in vol:
            cm = docs[("ConfigMap", vol["configMap"]["name"])]
            assert all(item["key"] in cm["data"] for item in vol["configMap"]["items"])
    mounts = {m["name"] for m in container["volumeMounts"]}
    assert mounts == {v["name"] for v in pod["spec"]["volumes"]}
    config = docs[("ConfigMap", "ragmon-config")]["data"]
    rules_mount = next(m["mountPath"] for m in container["volumeMounts"] if m["name"] == "rules")
    assert config["RAGMON_RULES_FILE"] == f"{rules_mount}/rules.yaml"
    _env_names_are_settings(set(config) | set(env))
    kustom = _docs(DEPLOY / "k8s/kustomization.yaml")[0]
    assert all((DEPLOY / "k8s" / r).is_file() for r in kustom["resources"])


def _env_names_are_settings(names: set[str]) -> None:
    known = {f"RAGMON_{n.upper()}" for n in Settings.model_fields} | {
        "OPENAI_BASE_URL",
        "OPENAI_API_KEY",
    }
    assert names - known == set(), "environment variables no setting reads"


# --- docker compose --------------------------------------------------------------------------


def test_compose_file_is_sane() -> None:
    compose = _docs(DEPLOY / "docker-compose.yml")[0]
    services = compose["services"]
    assert set(services) == {
        "kafka",
        "ragmon-worker",
        "prometheus",
        "alertmanager",
        "alert-log",
        "grafana",
    }
    kafka = services["kafka"]["environment"]
    assert (
        "broker" in kafka["KAFKA_PROCESS_ROLES"] and "controller" in kafka["KAFKA_PROCESS_ROLES"]
    )  # KRaft
    assert "ZOOKEEPER" not in json.dumps(kafka).upper()
    worker = services["ragmon-worker"]
    assert worker["deploy"]["replicas"] >= 2
    env = worker["environment"]
    _env_names_are_settings(set(env))
    internal = next(
        x for x in kafka["KAFKA_ADVERTISED_LISTENERS"].split(",") if x.startswith("PLAINTEXT://")
    )
    assert env["RAGMON_BOOTSTRAP_SERVERS"] == internal.removeprefix("PLAINTEXT://")
    assert (DEPLOY / worker["build"]["context"] / worker["build"]["dockerfile"]).is_file()
    for name in ("prometheus", "alertmanager", "alert-log", "grafana"):
        for volume in services[name]["volumes"]:
            source = volume.split(":")[0]
            assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
    prom = _docs(DEPLOY / "prometheus/prometheus.yml")[0]
    [job] = [j for j in prom["scrape_configs"] if j["job_name"] == "ragmon"]
    [sd] = job["dns_sd_configs"]
    assert sd["names"] == ["ragmon-worker"] and sd["port"] == int(env["RAGMON_METRICS_PORT"])
    assert env["RAGMON_METRICS_HOST"] == "0.0.0.0"
    assert prom["rule_files"] == ["rules.yml"]
    mounts = dict(v.split(":")[:2] for v in services["prometheus"]["volumes"])
    assert mounts["./prometheus/rules.yml"] == "/etc/prometheus/rules.yml"


def test_compose_and_the_image_pass_the_evidence_token_from_outside() -> None:
    """They bind 0.0.0.0: the token comes from the host's environment (never a literal), and
    the image says how to give it."""
    env = _docs(DEPLOY / "docker-compose.yml")[0]["services"]["ragmon-worker"]["environment"]
    assert env["RAGMON_METRICS_HOST"] == "0.0.0.0"
    assert env["RAGMON_EVIDENCE_TOKEN"] == "${RAGMON_EVIDENCE_TOKEN:-}"
    assert env["RAGMON_REVIEW_TOKEN"] == "${RAGMON_REVIEW_TOKEN:-}"
    dockerfile = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    assert "RAGMON_METRICS_HOST=0.0.0.0" in dockerfile
    assert "-e RAGMON_EVIDENCE_TOKEN=" in dockerfile
    assert "ENV RAGMON_EVIDENCE_TOKEN" not in dockerfile


# --- Grafana provisioning and dashboard ------------------------------------------------------


def test_grafana_provisioning_fits_together() -> None:
    [ds] = _docs(DEPLOY / "grafana/provisioning/datasources/prometheus.yaml")[0]["datasources"]
    alerting = _docs(DEPLOY / "grafana/provisioning/alerting/ragmon-rules.yaml")[0]
    [group] = alerting["groups"]
    queries = [
        q for rule in group["rules"] for q in rule["data"] if q["datasourceUid"] != "__expr__"
    ]
    assert queries and {q["datasourceUid"] for q in queries} == {ds["uid"]}
    [provider] = _docs(DEPLOY / "grafana/provisioning/dashboards/ragmon.yaml")[0]["providers"]
    compose = _docs(DEPLOY / "docker-compose.yml")[0]
    mounts = dict(v.split(":")[:2] for v in compose["services"]["grafana"]["volumes"])
    assert mounts["../dashboards"] == provider["options"]["path"]
    assert provider["folder"] == group["folder"]


def test_provisioned_alert_rules_satisfy_grafanas_rule_schema() -> None:
    from tests.contract.grafana_contract_server import SPEC_PATH

    if not SPEC_PATH.is_file():
        pytest.skip(f"Grafana API contract not found at {SPEC_PATH}")
    spec = json.loads(SPEC_PATH.read_text())
    schema = {"$ref": "#/definitions/ProvisionedAlertRule", "definitions": spec["definitions"]}
    [group] = _docs(DEPLOY / "grafana/provisioning/alerting/ragmon-rules.yaml")[0]["groups"]
    for rule in group["rules"]:
        # the file format names org and folder on the group; the API wants them on the rule
        body = {**rule, "orgID": group["orgId"], "folderUID": "ragmon", "ruleGroup": group["name"]}
        jsonschema.Draft4Validator(schema).validate(body)
        assert rule["data"][-1]["refId"] == rule["condition"]


def test_dashboard_shape() -> None:
    dash = json.loads((ROOT / "dashboards/ragmon.json").read_text())
    assert dash["schemaVersion"] >= 39 and dash["uid"] == "ragmon-overview"
    variables = {v["name"]: v for v in dash["templating"]["list"]}
    assert (
        variables["datasource"]["type"] == "datasource"
        and variables["datasource"]["query"] == "prometheus"
    )
    assert variables["app"]["multi"] and variables["app"]["includeAll"]
    [ragmon_ann] = [a for a in dash["annotations"]["list"] if a["name"] == "ragmon alerts"]
    assert ragmon_ann["target"]["tags"] == ["ragmon"]
    panels = [p for p in dash["panels"] if p["type"] != "row"]
    assert len({p["id"] for p in dash["panels"]}) == len(dash["panels"])
    for p in panels:
        assert p["datasource"]["uid"] == "${datasource}" and p["targets"]
        assert p["gridPos"]["x"] + p["gridPos"]["w"] <= 24
    exprs = " ".join(t["expr"] for p in panels for t in p["targets"])
    for metric in (
        "ragmon_events_total",
        "ragmon_citation_errors_total",
        "ragmon_claims_total",
        "ragmon_judge_requests_total",
        "ragmon_judge_tokens_total",
        "ragmon_judge_cost_usd_total",
        "ragmon_judge_queue_depth",
        "ragmon_judge_latency_seconds_bucket",
        "ragmon_check_duration_seconds_bucket",
        "ragmon_event_lag_seconds_bucket",
        "ragmon_dlq_total",
        "ragmon_alert_firing",
        "ragmon_validity_ratio",
        "ragmon_hallucination_ratio",
    ):
        assert metric in exprs, metric
