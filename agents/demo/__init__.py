"""`ragmon demo`: embedded broker, worker and synthetic traffic with a drift phase.

May import: kafka, stream and the wings below them.
"""
