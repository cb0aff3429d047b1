"""Citation extraction, resolution and structural validation (DESIGN.md §3, §4 step 2)."""

from __future__ import annotations

from monitor.citations.extract import extract_citations
from monitor.citations.resolve import resolve_citations

__all__ = ["extract_citations", "resolve_citations"]
