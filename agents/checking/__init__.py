"""The check workers: the per-answer check work, the pool of check processes beside the
worker, and the mypyc-compiled core (`make fast`).

May import: telemetry, output, kafka.
"""
