"""The other ops of dygraph.nn.functional: linear maps, dropout, attention, distances,
resampling and vision rearrangements.
"""
