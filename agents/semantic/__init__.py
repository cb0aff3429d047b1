"""The semantic tier: all-MiniLM-L6-v2 sentence embeddings, loaded offline from a pinned
package, scoring claims against windows of their cited text (docs/semantic.md)."""
