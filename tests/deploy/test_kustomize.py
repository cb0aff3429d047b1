"""deploy/k8s as `kubectl apply -k` would apply it: rendered by `kubectl kustomize`, with the
image set through `images:`, the secrets wired from one Secret, and each worker pod scraped
once under the job name the alert rules match (`ragmon`): by the ServiceMonitor of
deploy/k8s-operator, or by the `ragmon` job of deploy/prometheus/kubernetes.yml. Neither may
coexist with prometheus.io/* annotations, which the usual annotation jobs scrape under their
own job names (a second scrape, and `absent(up{job="ragmon"})` never satisfied by them)."""

from __future__ import annotations

import copy
import re
import shutil
import subprocess
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.deploy.test_deploy import DEPLOY, ROOT, _docs, _validator, needs_promtool

KUBECTL = shutil.which("kubectl")
needs_kubectl = pytest.mark.skipif(KUBECTL is None, reason="kubectl not installed")
VERSION = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def _render(path: Path) -> list[dict[str, Any]]:
    assert KUBECTL is not None
    out = subprocess.run(
        [KUBECTL, "kustomize", str(path)], capture_output=True, text=True, timeout=60
    )
    assert out.returncode == 0, out.stderr
    docs = [d for d in yaml.safe_load_all(out.stdout) if d]
    for doc in docs:
        errors = [e.message for e in _validator(doc["kind"]).iter_errors(doc)]
        assert errors == [], (doc["kind"], errors)
    return docs


def _one(docs: list[dict[str, Any]], kind: str) -> dict[str, Any]:
    [doc] = [d for d in docs if d["kind"] == kind]
    return doc


def _container(docs: list[dict[str, Any]]) -> dict[str, Any]:
    [container] = _one(docs, "Deployment")["spec"]["template"]["spec"]["containers"]
    return container


def _annotations(doc: dict[str, Any]) -> dict[str, str]:
    found = dict(doc["metadata"].get("annotations", {}))
    template = doc.get("spec", {}).get("template")
    if template:
        found.update(template["metadata"].get("annotations", {}))
    return found


@needs_kubectl
def test_base_renders_with_the_image_and_the_secrets() -> None:
    docs = _render(DEPLOY / "k8s")
    assert sorted(d["kind"] for d in docs) == ["ConfigMap", "ConfigMap", "Deployment", "Service"]
    container = _container(docs)
    assert container["image"] == f"ragmon:{VERSION}"  # images: in kustomization.yaml
    secrets = {
        e["name"]: e["valueFrom"]["secretKeyRef"]
        for e in container["env"]
        if "secretKeyRef" in e.get("valueFrom", {})
    }
    assert secrets == {
        "RAGMON_SASL_PASSWORD": {
            "name": "ragmon-secrets",
            "key": "sasl-password",
            "optional": True,
        },
        "RAGMON_GRAFANA_TOKEN": {
            "name": "ragmon-secrets",
            "key": "grafana-token",
            "optional": True,
        },
        "OPENAI_API_KEY": {"name": "ragmon-secrets", "key": "openai-api-key", "optional": True},
        # optional in the Secret: a worker without it says so itself, in one line
        "RAGMON_EVIDENCE_TOKEN": {
            "name": "ragmon-secrets",
            "key": "evidence-token",
            "optional": True,
        },
        "RAGMON_REVIEW_TOKEN": {"name": "ragmon-secrets", "key": "review-token", "optional": True},
    }
    config = _one([d for d in docs if d["metadata"]["name"] == "ragmon-config"], "ConfigMap")
    assert not any("PASSWORD" in k or "TOKEN" in k or "KEY" in k for k in config["data"])
    for doc in docs:
        assert doc["metadata"]["labels"]["app.kubernetes.io/part-of"] == "ragmon"
        assert not [k for k in _annotations(doc) if k.startswith("prometheus.io/")]


@needs_kubectl
def test_the_images_entry_is_what_sets_the_image(tmp_path: Path) -> None:
    """A user's `images:` (or `kustomize edit set image ragmon=...`) reaches the Deployment."""
    base = tmp_path / "base"
    shutil.copytree(DEPLOY / "k8s", base)
    kustomization = yaml.safe_load((base / "kustomization.yaml").read_text())
    kustomization["images"] = [
        {"name": "ragmon", "newName": "registry.example.com/team/ragmon", "newTag": "1.2.3"}
    ]
    (base / "kustomization.yaml").write_text(yaml.safe_dump(kustomization))
    assert _container(_render(base))["image"] == "registry.example.com/team/ragmon:1.2.3"


@needs_kubectl
def test_operator_overlay_scrapes_each_pod_once_as_job_ragmon() -> None:
    docs = _render(DEPLOY / "k8s-operator")
    assert sorted(d["kind"] for d in docs) == [
        "ConfigMap",
        "ConfigMap",
        "Deployment",
        "Service",
        "ServiceMonitor",
    ]
    monitor, service = _one(docs, "ServiceMonitor"), _one(docs, "Service")
    deployment = _one(docs, "Deployment")
    pod_labels = deployment["spec"]["template"]["metadata"]["labels"]
    # the ServiceMonitor selects this Service, and the Service these pods
    assert (
        monitor["spec"]["selector"]["matchLabels"].items() <= service["metadata"]["labels"].items()
    )
    assert service["spec"]["selector"].items() <= pod_labels.items()
    # the job label is read from the Service's label named by jobLabel
    assert service["metadata"]["labels"][monitor["spec"]["jobLabel"]] == "ragmon"
    # one endpoint on one named Service port that reaches the metrics container port: one
    # target per pod
    [endpoint] = monitor["spec"]["endpoints"]
    [port] = [p for p in service["spec"]["ports"] if p["name"] == endpoint["port"]]
    metrics = {p["name"]: p["containerPort"] for p in _container(docs)["ports"]}
    assert port["targetPort"] in metrics or port["targetPort"] in metrics.values()
    assert len(service["spec"]["ports"]) == 1
    assert _container(docs)["image"] == f"ragmon:{VERSION}"


# --- plain Prometheus in Kubernetes --------------------------------------------------------


def _meta_label(name: str) -> str:
    return "__meta_kubernetes_pod_label_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


def _kept(job: dict[str, Any], target: dict[str, str]) -> bool:
    """Prometheus's keep/drop relabel steps (anchored regex over `;`-joined labels) on one
    discovered target; the other actions only rename and are left out."""
    for step in job.get("relabel_configs", []):
        action = step.get("action", "replace")
        if action not in ("keep", "drop"):
            continue
        value = step.get("separator", ";").join(target.get(s, "") for s in step["source_labels"])
        matched = re.fullmatch(step.get("regex", "(.*)"), value) is not None
        if matched != (action == "keep"):
            return False
    return True


def _pod_targets(pod: dict[str, Any], phase: str = "Running") -> list[dict[str, str]]:
    """What `kubernetes_sd_configs: role: pod` discovers: one target per container port."""
    labels = {_meta_label(k): v for k, v in pod["metadata"]["labels"].items()}
    return [
        {
            **labels,
            "__meta_kubernetes_pod_phase": phase,
            "__meta_kubernetes_pod_container_port_name": port.get("name", ""),
            "__meta_kubernetes_pod_container_port_number": str(port["containerPort"]),
        }
        for container in pod["spec"]["containers"]
        for port in container.get("ports", [])
    ]


def test_plain_prometheus_job_keeps_each_worker_pod_once() -> None:
    config = _docs(DEPLOY / "prometheus/kubernetes.yml")[0]
    [job] = [j for j in config["scrape_configs"] if j["job_name"] == "ragmon"]
    assert [sd["role"] for sd in job["kubernetes_sd_configs"]] == ["pod"]
    [deployment] = [d for d in _docs(DEPLOY / "k8s/deployment.yaml") if d["kind"] == "Deployment"]
    pod = copy.deepcopy(deployment["spec"]["template"])
    pod["spec"]["containers"][0]["ports"].append({"name": "debug", "containerPort": 5678})
    kept = [t for t in _pod_targets(pod) if _kept(job, t)]
    assert [t["__meta_kubernetes_pod_container_port_name"] for t in kept] == ["metrics"]
    assert not [t for t in _pod_targets(pod, phase="Pending") if _kept(job, t)]
    other = copy.deepcopy(pod)
    other["metadata"]["labels"]["app.kubernetes.io/name"] = "not-ragmon"
    assert not [t for t in _pod_targets(other) if _kept(job, t)]


def test_every_shipped_scrape_job_is_the_one_the_rules_name() -> None:
    rules = (DEPLOY / "prometheus/rules.yml").read_text()
    assert set(re.findall(r'job="([^"]+)"', rules)) == {"ragmon"}
    for name in ("prometheus.yml", "kubernetes.yml"):
        jobs = [j["job_name"] for j in _docs(DEPLOY / "prometheus" / name)[0]["scrape_configs"]]
        assert "ragmon" in jobs, name


@needs_promtool
def test_promtool_checks_the_kubernetes_job(tmp_path: Path) -> None:
    """Debian's promtool is built without Kubernetes discovery, so the job is checked with its
    discovery swapped for static targets (every other field as shipped), and as shipped where
    the promtool knows `kubernetes_sd_configs`."""
    from tests.deploy.test_deploy import PROMTOOL

    assert PROMTOOL is not None
    shutil.copy(DEPLOY / "prometheus/rules.yml", tmp_path / "rules.yml")
    config = _docs(DEPLOY / "prometheus/kubernetes.yml")[0]
    for job in config["scrape_configs"]:
        job["static_configs"] = [{"targets": ["worker:6066"]}]
        del job["kubernetes_sd_configs"]
    (tmp_path / "static.yml").write_text(yaml.safe_dump(config))
    shutil.copy(DEPLOY / "prometheus/kubernetes.yml", tmp_path / "kubernetes.yml")

    def check(name: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [PROMTOOL, "check", "config", name],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=60,
        )

    out = check("static.yml")
    assert out.returncode == 0, out.stdout + out.stderr
    out = check("kubernetes.yml")
    if "field kubernetes_sd_configs not found" not in out.stdout + out.stderr:
        assert out.returncode == 0, out.stdout + out.stderr
