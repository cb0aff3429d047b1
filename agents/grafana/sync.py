"""`ragmon grafana sync`: folder, dashboard and Grafana-managed alert rules, idempotently.

Reads what Grafana has, compares it with what ragmon wants (only the fields ragmon sets: Grafana
adds ids, versions and defaults of its own), and writes only what differs. A second run right
after the first therefore writes nothing. A dry run does the reads and prints the plan.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # a type only: its HTTP client (niquests) costs every ragmon command ~0.1 s
    from agents.grafana.client import Grafana

Kind = Literal["create", "update", "unchanged"]
_IGNORED_DASHBOARD_KEYS = ("id", "version")


@dataclass
class Action:
    what: str  # folder | dashboard | alert rule
    uid: str
    kind: Kind
    detail: str = ""
    apply: Callable[[], None] | None = field(default=None, repr=False)

    def line(self) -> str:
        text = f"{self.what:<11} {self.uid:<32} {self.kind}"
        return f"{text} ({self.detail})" if self.detail else text


def folder_uid(title: str) -> str:
    slug = re.sub(r"[^a-zA-Z0-9_-]+", "-", title).strip("-").lower()
    return (slug or "ragmon")[:40]


def is_subset(want: Any, have: Any) -> bool:
    """Every field ragmon sets has the same value in Grafana (extra fields there are fine)."""
    if isinstance(want, dict):
        return isinstance(have, dict) and all(
            k in have and is_subset(v, have[k]) for k, v in want.items()
        )
    if isinstance(want, list):
        return isinstance(have, list) and len(want) == len(have) and all(map(is_subset, want, have))
    if isinstance(want, bool) or isinstance(have, bool):
        return want is have
    if isinstance(want, int | float) and isinstance(have, int | float):
        return float(want) == float(have)
    return bool(want == have)


def _changed(want: dict[str, Any], have: dict[str, Any]) -> str:
    keys = sorted(k for k, v in want.items() if not is_subset(v, have.get(k)))
    return "changed: " + ", ".join(keys) if keys else ""


def plan(
    grafana: Grafana | None,
    *,
    folder_title: str,
    dashboard: dict[str, Any],
    alert_rules: list[dict[str, Any]],
) -> list[Action]:
    """What sync would do. Without a Grafana, the plan against an empty one (all creates)."""
    f_uid = folder_uid(folder_title)
    d_uid = str(dashboard.get("uid") or "")
    if not d_uid:
        raise ValueError("the dashboard JSON needs a uid so that sync can find it again")
    want = {k: v for k, v in dashboard.items() if k not in _IGNORED_DASHBOARD_KEYS}
    if grafana is None:
        return [
            Action("folder", f_uid, "create", folder_title),
            Action("dashboard", d_uid, "create", str(dashboard.get("title", ""))),
            *(Action("alert rule", str(r["uid"]), "create", str(r["title"])) for r in alert_rules),
        ]
    g = grafana
    actions: list[Action] = []

    folder = g.get_folder(f_uid)
    if folder is None:
        actions.append(
            Action(
                "folder",
                f_uid,
                "create",
                folder_title,
                lambda: g.create_folder(f_uid, folder_title),
            )
        )
    elif folder.get("title") != folder_title:
        version = folder.get("version")
        detail = f"title {folder.get('title')!r} → {folder_title!r}"
        actions.append(
            Action(
                "folder",
                f_uid,
                "update",
                detail,
                lambda: g.update_folder(f_uid, folder_title, version),
            )
        )
    else:
        actions.append(Action("folder", f_uid, "unchanged"))

    current = g.get_dashboard(d_uid)
    save = lambda: g.save_dashboard(want, f_uid, "ragmon grafana sync")  # noqa: E731
    if current is None:
        actions.append(Action("dashboard", d_uid, "create", str(dashboard.get("title", "")), save))
    else:
        detail = _changed(want, current.get("dashboard") or {})
        if (current.get("meta") or {}).get("folderUid", f_uid) != f_uid:
            detail = (detail + "; " if detail else "") + f"move to folder {f_uid}"
        actions.append(
            Action("dashboard", d_uid, "update" if detail else "unchanged", detail, save)
        )

    for rule in alert_rules:
        body = {**rule, "folderUID": f_uid}
        uid = str(body["uid"])
        have = g.get_alert_rule(uid)
        if have is None:
            create = lambda b=body: g.create_alert_rule(b)  # noqa: E731
            actions.append(Action("alert rule", uid, "create", str(body["title"]), create))
            continue
        detail = _changed(body, have)
        update = lambda u=uid, b=body: g.update_alert_rule(u, b)  # noqa: E731
        actions.append(
            Action("alert rule", uid, "update" if detail else "unchanged", detail, update)
        )
    return actions


def apply(actions: list[Action]) -> None:
    for action in actions:
        if action.kind != "unchanged" and action.apply is not None:
            action.apply()


def summary(actions: list[Action], dry_run: bool) -> str:
    counts = {k: sum(a.kind == k for a in actions) for k in ("create", "update", "unchanged")}
    verb = ("to create", "to update") if dry_run else ("created", "updated")
    text = f"{counts['create']} {verb[0]}, {counts['update']} {verb[1]}, {counts['unchanged']} unchanged"
    return text + (" (dry run: nothing written)" if dry_run else "")
