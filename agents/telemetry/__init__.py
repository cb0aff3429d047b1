"""Telemetry: the Prometheus metrics factory, per-process counters and logging set-up.

The lowest wing: imports only monitor/ and third-party libraries, so every other wing (the check
workers and Grafana included) can count and log without reaching up.
"""
