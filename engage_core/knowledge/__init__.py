"""The knowledge base: entries of every type (product catalogues so far)."""
