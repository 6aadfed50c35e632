"""Framework-wide pieces: dtypes, places, randomness and error formatting."""
