"""tools/mutation.py and the tests written for the mutants it found surviving
(docs/DEVELOPING.md, "Mutation testing")."""
