"""Linear algebra: matmul and products, decompositions, solvers, norms; the functions of
dygraph.linalg.
"""
