"""Configuration: the one settings object (the only reader of the environment), the check
options, the error hierarchy rooted at RagmonError, CPU counting and the RAGMON_* name check.

Imports nothing else of monitor/ (the lowest wing with records/).
"""
