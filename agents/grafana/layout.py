"""The dashboard's grid: where each panel goes and the JSON Grafana reads for it (a timeseries or
other panel with its targets, units, thresholds, links and repeat). agents/grafana/dashboard.py
says what the panels show.
"""

from __future__ import annotations

from typing import Any

#: every panel and target queries the dashboard's `datasource` variable
DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


class Layout:
    """Panels placed left to right on Grafana's 24-column grid, 8 rows high, a new line when
    the next panel does not fit; `row` starts a titled row on a line of its own."""

    def __init__(self) -> None:
        self.panels: list[dict[str, Any]] = []
        self.x = 0
        self.y = 0

    def row(self, title: str) -> None:
        self._next_line()
        self.panels.append(
            {
                "id": len(self.panels) + 1,
                "type": "row",
                "title": title,
                "collapsed": False,
                "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y},
                "panels": [],
            }
        )
        self.y += 1

    def _next_line(self) -> None:
        if self.x:
            self.x = 0
            self.y += 8

    def panel(
        self,
        title: str,
        targets: list[tuple[str, str]],
        *,
        unit: str = "short",
        w: int = 12,
        kind: str = "timeseries",
        ratio: bool = False,
        thresholds: list[float] | None = None,
        description: str = "",
        overrides: list[dict[str, Any]] | None = None,
        repeat: str | None = None,
        mappings: list[dict[str, Any]] | None = None,
        links: list[dict[str, Any]] | None = None,
    ) -> None:
        if self.x + w > 24:
            self._next_line()
        defaults: dict[str, Any] = {"unit": "percentunit" if ratio else unit}
        if ratio:
            defaults.update(min=0, max=1)
        if thresholds:
            steps = [{"color": "green", "value": None}] + [
                {"color": "red", "value": t} for t in thresholds
            ]
            defaults["thresholds"] = {"mode": "absolute", "steps": steps}
            defaults["custom"] = {"thresholdsStyle": {"mode": "line+area"}}
        if mappings:
            defaults["mappings"] = mappings
        if links:
            defaults["links"] = links
        extra: dict[str, Any] = {}
        if repeat:
            extra = {"repeat": repeat, "repeatDirection": "h", "maxPerRow": 4}
        self.panels.append(
            {
                **extra,
                "id": len(self.panels) + 1,
                "type": kind,
                "title": title,
                "description": description,
                "datasource": DATASOURCE,
                "gridPos": {"h": 8, "w": w, "x": self.x, "y": self.y},
                "fieldConfig": {"defaults": defaults, "overrides": overrides or []},
                "options": {
                    "legend": {"displayMode": "table", "placement": "right", "showLegend": True},
                    "tooltip": {"mode": "multi", "sort": "desc"},
                },
                "targets": [
                    {
                        "refId": chr(ord("A") + i),
                        "datasource": DATASOURCE,
                        "expr": expr,
                        "legendFormat": legend,
                        "range": True,
                        "instant": False,
                    }
                    for i, (expr, legend) in enumerate(targets)
                ],
            }
        )
        self.x += w
