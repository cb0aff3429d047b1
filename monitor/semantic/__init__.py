"""The pure half of the semantic (sentence-embedding) signal: tokeniser, windows, cosine.

The model itself (ONNX Runtime, numpy) lives in agents/semantic; see docs/semantic.md.
"""
