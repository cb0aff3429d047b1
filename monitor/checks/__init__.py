"""The cheap checks of every claim: splitting the answer into claims, the evidence index,
support, grounding of uncited claims, contrast (negation, numbers, dates), quotes and the
answer's scores.

Imports config/, records/, text/, citations/ and output/ (span metrics).
"""
