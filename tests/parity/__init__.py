"""Behaviour that matches Paddle 3.3 where DyGraph used to differ, across rooms; each test
says which Paddle behaviour it pins down."""
