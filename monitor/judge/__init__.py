"""The LLM judge tier: prompt, reply schema, cache, client, requests and answer-level scoring.

`prompt`, `schema`, `cache`, `retry`, `passages`, `request`, `plan` and `answer` are pure; `call` (one logical
call: retries, forms, budget) and `client` (what is judged, on top of it) are the two modules that
talk to the network (through the `openai` package).
"""

from __future__ import annotations
