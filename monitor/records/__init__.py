"""The immutable value classes of the per-event path: the `@record` decorator and the answer
event, citation, claim and verdict records every other wing passes around.

Imports nothing else of monitor/.
"""
