"""Creation ops: constructors, random fills, conversion from other arrays."""
