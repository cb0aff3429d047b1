"""The worker's own web pages on Faust's web server: `/metrics` (Prometheus or OpenMetrics, as the
scraper asks), `/status`, and the evidence pages."""

from __future__ import annotations

from typing import Any

from prometheus_client import CollectorRegistry
from prometheus_client.exposition import choose_encoder

from agents.evidence.web import install as install_evidence
from agents.stream.ragmon_app import RagmonApp

__all__ = ["install_web", "metrics_payload"]


def metrics_payload(registry: CollectorRegistry, accept: str) -> tuple[bytes, str]:
    """The exposition the scraper asked for: OpenMetrics (with exemplars) when it accepts it,
    else the Prometheus text format."""
    encoder, content_type = choose_encoder(accept)
    return encoder(registry), content_type


def install_web(rapp: RagmonApp) -> None:
    app, registry = rapp.faust, rapp.metrics.registry

    async def metrics_view(view: Any, request: Any) -> Any:
        body, content_type = metrics_payload(registry, request.headers.get("Accept", ""))
        return view.bytes(body, headers={"Content-Type": content_type})

    async def status_view(view: Any, request: Any) -> Any:
        return view.json(rapp.status())

    app.page("/metrics", name="ragmon_metrics")(metrics_view)
    app.page("/status", name="ragmon_status")(status_view)
    join = rapp.label_join
    install_evidence(
        app,
        rapp.settings,
        int(app.conf.web_port),
        labels=(lambda: join.store.labels) if join is not None else None,
    )
