"""Output records: what ragmon writes for each answer (scores, audit records, dead letters,
compact JSON) and the outbox that flushes them before an offset is committed.

May import: telemetry.
"""
