"""Two small models that train through paddle.distribution: a VAE (reparameterised
Normal.rsample, Bernoulli.log_prob and the Normal KL) and a REINFORCE policy gradient
(Categorical sampling, log_prob and entropy). Both must lower their loss in a few
seconds."""

import numpy as np

import dygraph
import dygraph.nn.functional as F
from dygraph import nn
from dygraph.distribution import Bernoulli, Categorical, Normal, kl_divergence


def _binary_patterns(n, seed):
    """Noisy copies of 4 fixed 12-pixel binary prototypes."""
    rng = np.random.default_rng(seed)
    prototypes = rng.random((4, 12)) < 0.5
    flips = rng.random((n, 12)) < 0.05
    return (prototypes[rng.integers(0, 4, n)] ^ flips).astype("float32")


class _VAE(nn.Layer):
    def __init__(self, pixels=12, hidden=32, latent=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(pixels, hidden), nn.Tanh(),
                                     nn.Linear(hidden, 2 * latent))
        self.decoder = nn.Sequential(nn.Linear(latent, hidden), nn.Tanh(),
                                     nn.Linear(hidden, pixels))
        self.latent = latent

    def forward(self, x):
        stats = self.encoder(x)
        mu, log_std = stats[:, :self.latent], stats[:, self.latent:]
        posterior = Normal(mu, log_std.exp())
        z = posterior.rsample()  # gradients reach the encoder through the sample
        prior = Normal(dygraph.zeros_like(mu), dygraph.ones_like(mu))
        pixels = Bernoulli(F.sigmoid(self.decoder(z)))
        reconstruction = pixels.log_prob(x).sum(-1)
        kl = kl_divergence(posterior, prior).sum(-1)
        return -(reconstruction - kl).mean()  # the negative ELBO


def test_vae_trains():
    dygraph.seed(0)
    data = dygraph.to_tensor(_binary_patterns(256, 0))
    model = _VAE()
    opt = dygraph.optimizer.Adam(learning_rate=0.01, parameters=model.parameters())
    losses = []
    for _ in range(150):
        loss = model(data)
        loss.backward()
        opt.step()
        opt.clear_grad()
        losses.append(float(loss))
    # 12 fair coins cost 12 log 2 = 8.3 nats; 4 prototypes with 5% noise about 4 nats
    first, last = losses[0], np.mean(losses[-10:])
    assert first > 7.5 and last < 0.6 * first, (first, last)


def test_reinforce_learns_a_contextual_bandit():
    """Four states (one-hot), four actions; action == state pays 1, others 0."""
    dygraph.seed(1)
    policy = nn.Linear(4, 4)
    opt = dygraph.optimizer.Adam(learning_rate=0.05, parameters=policy.parameters())
    rng = np.random.default_rng(1)
    rewards = []
    for _ in range(120):
        states = rng.integers(0, 4, 64)
        scores = policy(dygraph.to_tensor(np.eye(4, dtype="float32")[states]))
        # Paddle's Categorical samples from softmax(logits) and reads log_prob from
        # logits / sum(logits): sample with the scores, score with the probabilities.
        # A [batch, 1] value picks one class per row (a [batch] one would pick every
        # action for every row).
        actions = Categorical(scores).sample()
        reward = (actions.numpy() == states).astype("float32")
        log_prob = Categorical(F.softmax(scores, axis=-1)).log_prob(actions.unsqueeze(-1))
        advantage = dygraph.to_tensor(reward - reward.mean())
        loss = -(log_prob.squeeze(-1) * advantage).mean() - 0.01 * Categorical(
            scores).entropy().mean()
        loss.backward()
        opt.step()
        opt.clear_grad()
        rewards.append(reward.mean())
    first, last = np.mean(rewards[:10]), np.mean(rewards[-10:])
    assert first < 0.45 and last > 0.9, (first, last)
