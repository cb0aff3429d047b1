"""Benchmarks behind `ragmon bench`: end to end through a broker, and the judge on vs off.

May import: every wing below it (up to stream).
"""
