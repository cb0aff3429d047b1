"""The LLM judge in the stream: the judge runner (bounded queue, budgets, the openai client),
canary agreement, and the scripted OpenAI-compatible server used by bench, demo and tests.

May import: telemetry, output, kafka, checking.
"""
