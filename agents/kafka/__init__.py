"""Kafka plumbing: connection settings, topic names and creation, the embedded `tansu` broker,
the answer producer; `faust_fixes/` patches faust-streaming internals.

May import: telemetry, output.
"""
