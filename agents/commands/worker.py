"""`ragmon worker`: the streaming monitor against any Kafka cluster."""

from __future__ import annotations

import argparse
from typing import Any

from monitor.config.settings import load_settings


def register(sub: Any) -> None:
    p = sub.add_parser(
        "worker",
        help="run the streaming monitor (Faust worker) against a Kafka cluster",
        description="Consume answer events, run the checks, export /metrics, publish scores, "
        "audit records and dead letters. Every option also has a RAGMON_* environment "
        "variable; secrets (SASL password) only come from the environment or the config file. "
        "Run several workers with the same --app-id to share the partitions.",
    )
    p.add_argument("-b", "--bootstrap-servers", metavar="HOST:PORT[,..]", help="Kafka brokers")
    p.add_argument("--app-id", help="Faust app id = consumer group (RAGMON_APP_ID)")
    p.add_argument(
        "--security-protocol", choices=["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"]
    )
    p.add_argument("--sasl-mechanism", choices=["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
    p.add_argument("--sasl-username")
    p.add_argument("--ssl-cafile", metavar="PEM")
    p.add_argument("--ssl-certfile", metavar="PEM")
    p.add_argument("--ssl-keyfile", metavar="PEM")
    p.add_argument("--metrics-host", help="address /metrics binds to (RAGMON_METRICS_HOST)")
    p.add_argument("--metrics-port", type=int, help="port of /metrics (RAGMON_METRICS_PORT)")
    p.add_argument("--concurrency", type=int, help="check agent instances (RAGMON_CONCURRENCY)")
    p.add_argument(
        "--check-processes",
        metavar="N|auto",
        help="run the checks in N more processes, on more cores (RAGMON_CHECK_PROCESSES; "
        "0: in the worker process; default auto: 2 on two or more CPUs, else 0)",
    )
    p.add_argument("--partitions", type=int, help="partitions of topics ragmon creates")
    p.add_argument(
        "--max-wait",
        type=float,
        metavar="SECONDS",
        help="give up when the broker is unreachable this long at start (default: keep trying)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from agents.stream.runner import run_worker

    settings = load_settings(
        getattr(args, "config", None),
        bootstrap_servers=args.bootstrap_servers,
        app_id=args.app_id,
        security_protocol=args.security_protocol,
        sasl_mechanism=args.sasl_mechanism,
        sasl_username=args.sasl_username,
        ssl_cafile=args.ssl_cafile,
        ssl_certfile=args.ssl_certfile,
        ssl_keyfile=args.ssl_keyfile,
        metrics_host=args.metrics_host,
        metrics_port=args.metrics_port,
        concurrency=args.concurrency,
        check_processes=args.check_processes,
        partitions=args.partitions,
    )
    return run_worker(settings, max_wait=args.max_wait)
