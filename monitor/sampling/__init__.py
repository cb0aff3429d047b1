"""Which answers the judge and the audit trail see: the event-id hash, base rates,
oversampling, budgets and per-app fairness.

Imports records/ only.
"""
