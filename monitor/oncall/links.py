"""Links from where a page starts (alerts, annotations, the dashboard) to the evidence page.

The page lives at `<base>/evidence` on the worker's web server (beside /metrics and /status);
`<base>` is RAGMON_PUBLIC_URL, by default the metrics address. Its query names the app, the
rule and the time range: `from`/`to` in epoch seconds (or milliseconds, as Grafana's
`${__from}` gives them), or `since`, a duration back from now, for templates that cannot know
when the alert started (a Prometheus rule's annotations cannot).

Pure: standard library only.
"""

from __future__ import annotations

from urllib.parse import quote, urlencode

#: the worker's address with the default settings: what the checked-in rule files link to
DEFAULT_BASE = "http://127.0.0.1:6066"
EVIDENCE_PATH = "/evidence"
API_PATH = "/evidence/api"
RUNBOOK_PATH = "/evidence/runbook"


def base_url(public_url: str, host: str, port: int) -> str:
    """RAGMON_PUBLIC_URL without a trailing slash, else the worker's own address."""
    if public_url.strip():
        return public_url.strip().rstrip("/")
    shown = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    if ":" in shown and not shown.startswith("["):
        shown = f"[{shown}]"  # an IPv6 literal
    return f"http://{shown}:{port}"


def runbook_url(setting: str, base: str, rule: str | None = None) -> str:
    """The runbook, at `rule`'s section when given: RAGMON_RUNBOOK_URL + `#rule` (a copy of
    docs/runbook.md, whose section anchors are the rule names), else the section the worker
    serves at /evidence/runbook/<rule>."""
    if setting.strip():
        return setting.strip() + (f"#{rule}" if rule else "")
    return base + RUNBOOK_PATH + (f"/{quote(rule)}" if rule else "")


def evidence_url(
    base: str,
    app: str,
    rule: str | None = None,
    start: float | None = None,
    end: float | None = None,
    since: str | None = None,
    api: bool = False,
) -> str:
    """The page (or its JSON) for one app, a rule and a time range."""
    query: list[tuple[str, str]] = [("app", app)]
    if rule:
        query.append(("rule", rule))
    if start is not None:
        query.append(("from", _seconds(start)))
    if end is not None:
        query.append(("to", _seconds(end)))
    if since:
        query.append(("since", since))
    path = API_PATH if api else EVIDENCE_PATH
    return f"{base}{path}?{urlencode(query, quote_via=quote)}"


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}"


def template_url(base: str, rule: str, since: str) -> str:
    """For Prometheus and Grafana-managed rule annotations (Go templates): the app is filled in
    by the alert's labels when it fires."""
    return f"{base}{EVIDENCE_PATH}?app={{{{ $labels.app | urlquery }}}}&rule={rule}&since={since}"


def dashboard_url(base: str, rule: str | None = None, app: str = "${__field.labels.app}") -> str:
    """A Grafana data link: the series' app (or a dashboard variable) and the dashboard's time
    range (ms)."""
    ruled = f"&rule={quote(rule)}" if rule else ""
    return f"{base}{EVIDENCE_PATH}?app={app}{ruled}&from=${{__from}}&to=${{__to}}"


def since_for(window_seconds: float, for_seconds: float) -> str:
    """How far back a rule's link looks: its window before the breach began, and its `for`."""
    return f"{round(window_seconds + for_seconds)}s"


def parse_time(value: str) -> float:
    """Epoch seconds from seconds or milliseconds (anything past year 5138 is milliseconds)."""
    number = float(value)
    if number != number or number < 0:  # NaN or negative
        raise ValueError(f"not a time: {value!r}")
    return number / 1000.0 if number > 1e11 else number
