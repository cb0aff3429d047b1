"""`ragmon grafana sync|render`: dashboards and alert rules into Grafana, or into files."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from agents.grafana.dashboard import build_dashboard
from agents.grafana.model import grafana_alert_rules
from agents.grafana.render import ROOT, render_files, write_files
from agents.grafana.sync import apply, folder_uid, plan, summary
from monitor.alerting.alerts import load_rules
from monitor.config.errors import ConfigError, GrafanaError
from monitor.config.settings import Settings, load_settings
from monitor.oncall.links import base_url


def register(sub: Any) -> None:
    p = sub.add_parser(
        "grafana",
        help="push dashboards and alert rules to Grafana, or render them to files",
        description="Grafana integration. Thresholds come from the alert rules file "
        "(RAGMON_RULES_FILE, default: the built-in rules).",
    )
    actions = p.add_subparsers(dest="grafana_command", metavar="ACTION")

    s = actions.add_parser(
        "sync",
        help="create or update the folder, dashboard and Grafana-managed alert rules",
        description="Create or update, through Grafana's HTTP API, the ragmon folder, the "
        "dashboard and one Grafana-managed alert rule per ragmon rule (plus 'not reporting'). "
        "Only what differs is written, so running it twice changes nothing the second time. "
        "Needs RAGMON_GRAFANA_URL and RAGMON_GRAFANA_TOKEN (a service-account token with the "
        "Editor role, or alerting and dashboard write permissions).",
    )
    s.add_argument(
        "--dry-run", action="store_true", help="read Grafana and print the plan; write nothing"
    )
    s.add_argument("--url", help="Grafana URL (overrides RAGMON_GRAFANA_URL)")
    s.add_argument("--rules", metavar="FILE", help="alert rules YAML (overrides RAGMON_RULES_FILE)")
    s.add_argument(
        "--dashboard", metavar="FILE", help="dashboard JSON to upload instead of the built-in one"
    )
    s.add_argument(
        "--datasource-uid", help="uid of Grafana's Prometheus data source the alert rules query"
    )
    s.set_defaults(func=run_sync)

    r = actions.add_parser(
        "render",
        help="write the dashboard, Prometheus rules and Grafana alert provisioning for the rules",
        description="Render dashboards/ragmon.json, deploy/prometheus/rules.yml and "
        "deploy/grafana/provisioning/alerting/ragmon-rules.yaml from the alert rules, so file-"
        "provisioned Grafana and Prometheus get the same thresholds.",
    )
    r.add_argument("--rules", metavar="FILE", help="alert rules YAML (overrides RAGMON_RULES_FILE)")
    r.add_argument(
        "--out",
        metavar="DIR",
        default=str(ROOT),
        help="root directory to write into (default: the repository)",
    )
    r.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if a file is out of date"
    )
    r.add_argument("--datasource-uid", help="uid of the Prometheus data source in the alert rules")
    r.set_defaults(func=run_render)
    p.set_defaults(func=lambda _args: (p.print_help(), 2)[1])


def links_base(settings: Settings) -> str:
    """Where alert and dashboard links point: RAGMON_PUBLIC_URL, else the metrics address."""
    return base_url(settings.public_url, settings.metrics_host, settings.metrics_port)


def run_sync(args: argparse.Namespace) -> int:
    settings = load_settings(getattr(args, "config", None))
    url = args.url or settings.grafana_url
    rules = load_rules(args.rules or settings.rules_file)
    datasource_uid = args.datasource_uid or settings.grafana_datasource_uid
    f_uid = folder_uid(settings.grafana_folder)
    if args.dashboard:
        try:
            dashboard = json.loads(Path(args.dashboard).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ConfigError(f"cannot read dashboard {args.dashboard}: {exc}") from exc
    else:
        dashboard = build_dashboard(rules, links_base(settings))
    bodies = grafana_alert_rules(
        rules,
        folder_uid=f_uid,
        datasource_uid=datasource_uid,
        org_id=settings.grafana_org_id,
        links_base=links_base(settings),
        runbook=settings.runbook_url,
    )
    grafana = None
    if url:
        # imported here: its HTTP client (niquests) is ~0.1 s that every ragmon command would
        # pay at start-up, `ragmon check` included (the CLI registers every command)
        from agents.grafana.client import Grafana

        token = settings.grafana_token.get_secret_value() if settings.grafana_token else None
        grafana = Grafana(
            url, token, org_id=settings.grafana_org_id, timeout=settings.grafana_timeout_seconds
        )
    elif not args.dry_run:
        raise ConfigError(
            "no Grafana configured: set RAGMON_GRAFANA_URL (or --url), or use --dry-run"
        )
    else:
        print("no Grafana configured: the plan against an empty Grafana", file=sys.stderr)
    try:
        actions = plan(
            grafana, folder_title=settings.grafana_folder, dashboard=dashboard, alert_rules=bodies
        )
        for action in actions:
            print(action.line())
        if not args.dry_run:
            apply(actions)
    except GrafanaError as exc:
        raise GrafanaError(
            f"grafana sync against {url}: {exc}", status=exc.status, reason=exc.reason
        ) from exc
    print(summary(actions, args.dry_run))
    return 0


def run_render(args: argparse.Namespace) -> int:
    settings = load_settings(getattr(args, "config", None))
    source = args.rules or settings.rules_file
    rules = load_rules(source)
    files = render_files(
        rules,
        source=source or "monitor/alerting/rules_default.yaml",
        datasource_uid=args.datasource_uid or settings.grafana_datasource_uid,
        folder_title=settings.grafana_folder,
        links_base=links_base(settings),
        runbook=settings.runbook_url,
    )
    root = Path(args.out)
    if args.check:
        stale = [
            rel
            for rel, text in files.items()
            if not (root / rel).is_file() or (root / rel).read_text(encoding="utf-8") != text
        ]
        for rel in stale:
            print(f"out of date: {rel}")
        return 1 if stale else 0
    for rel in write_files(files, root):
        print(f"wrote {rel}")
    return 0
