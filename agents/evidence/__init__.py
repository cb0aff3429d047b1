"""The evidence page on the worker's web server (beside /metrics and /status), and the audit
trail read back by time range for it and for `ragmon audit`.

May import: telemetry, output, kafka.
"""
