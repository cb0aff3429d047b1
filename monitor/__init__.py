"""ragmon's pure checking core: decode, extract, resolve, split, support, score."""

from __future__ import annotations

__version__ = "0.1.0"
