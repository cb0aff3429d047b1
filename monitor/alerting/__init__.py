"""Alert rules: their definition and defaults (rules_default.yaml), the rules file, and the
state machine that fires and resolves them on a window's estimates.

Imports estimation/ and config/.
"""
