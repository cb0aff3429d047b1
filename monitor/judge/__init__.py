"""The LLM judge tier: prompt, reply schema, cache, client, requests and answer-level scoring.

`prompt`, `schema`, `cache`, `retry`, `request`, `plan` and `answer` are pure; `client` is the one
module that talks to the network (through the `openai` package).
"""

from __future__ import annotations
