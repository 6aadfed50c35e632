"""Shape manipulation, indexing, gathers and scatters."""
