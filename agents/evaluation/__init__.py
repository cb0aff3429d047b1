"""Evaluation against human labels with the judge (`ragmon eval --judge`) and its extra
outputs (TREC qrels, leaderboard, HTML).

May import: telemetry, judging.
"""
