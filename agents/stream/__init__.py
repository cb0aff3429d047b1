"""The stream: the Faust app factory, the check, aggregate and judge agents, the windowed
table and its dedup, in-stream alerting, and the worker runner.

May import: every wing below it (telemetry, output, kafka, checking, judging, grafana,
evidence).
"""
