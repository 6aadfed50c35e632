"""A two-layer GCN built on paddle.geometric learns the communities of a synthetic graph.

The graph is a two-community stochastic block model: 300 nodes, edges within a community
ten times as likely as across. Node features are noise with a faint community signal, too
faint to classify a node alone; averaging over neighbours (mostly of the same community)
brings it out. Trained on 30 labelled nodes, the GCN labels the other 270 far better than
the features alone do.
"""

import numpy as np

import dygraph
import dygraph.geometric as G
import dygraph.nn.functional as F
from dygraph import nn


def _block_model(rng, n_nodes=300, p_in=0.05, p_out=0.005, n_features=16):
    labels = np.repeat([0, 1], n_nodes // 2)
    same = labels[:, None] == labels[None, :]
    upper = np.triu(rng.random((n_nodes, n_nodes)) < np.where(same, p_in, p_out), 1)
    src, dst = np.nonzero(upper | upper.T)
    loops = np.arange(n_nodes)  # self-loops, as in Kipf and Welling's A + I
    src, dst = np.concatenate([src, loops]), np.concatenate([dst, loops])
    signal = np.where(labels[:, None] == 1, 0.3, -0.3) * (np.arange(n_features) < 4)
    features = signal + rng.standard_normal((n_nodes, n_features))
    return features.astype(np.float32), labels, src, dst


class GCN(nn.Layer):
    """Two graph convolutions: h' = D^-1/2 (A + I) D^-1/2 h W, as messages along edges."""

    def __init__(self, n_in, n_hidden, n_out):
        super().__init__()
        self.first = nn.Linear(n_in, n_hidden)
        self.second = nn.Linear(n_hidden, n_out)

    def propagate(self, h, src, dst, norm):
        return G.send_ue_recv(h, norm, src, dst, message_op="mul", reduce_op="sum")

    def forward(self, x, src, dst, norm):
        h = F.relu(self.propagate(self.first(x), src, dst, norm))
        return self.propagate(self.second(h), src, dst, norm)


def test_gcn_learns_the_communities():
    dygraph.seed(0)
    rng = np.random.default_rng(0)
    features, labels, src, dst = _block_model(rng)
    degree = np.bincount(dst, minlength=len(labels)).astype(np.float32)
    norm = 1.0 / np.sqrt(degree[src] * degree[dst])
    train = np.concatenate([rng.choice(150, 15, replace=False),
                            150 + rng.choice(150, 15, replace=False)])
    test = np.setdiff1d(np.arange(len(labels)), train)

    x = dygraph.to_tensor(features)
    graph = (dygraph.to_tensor(src), dygraph.to_tensor(dst), dygraph.to_tensor(norm))
    target = dygraph.to_tensor(labels[train])
    model = GCN(features.shape[1], 16, 2)
    optimizer = dygraph.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())

    def accuracy(rows):
        predicted = model(x, *graph).numpy().argmax(axis=1)
        return float((predicted[rows] == labels[rows]).mean())

    for _ in range(60):
        loss = F.cross_entropy(model(x, *graph)[dygraph.to_tensor(train)], target)
        loss.backward()
        optimizer.step()
        optimizer.clear_grad()
    # The features alone, by the nearest class mean of the labelled nodes: well short.
    means = [features[train][labels[train] == c].mean(axis=0) for c in (0, 1)]
    distances = [((features[test] - mean) ** 2).sum(axis=1) for mean in means]
    alone = float((np.argmin(distances, axis=0) == labels[test]).mean())
    got = accuracy(test)
    assert got >= 0.9 and got >= alone + 0.15, (got, alone)
