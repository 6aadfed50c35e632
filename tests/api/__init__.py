"""The public surface as Paddle code imports it: the recorded PaddlePaddle 3.3 names and the
module paths (paddle.base, paddle.tensor.*, paddle.nn.layer.*, ...)."""
