"""nn layers forward + backward: LayerNorm and BatchNorm2d at 4M elements, and a small
LSTM language-model layer.
"""

from .registry import Point, seed, timed_case


# --------------------------------------------------------------------------
# nn layers: normalization at 4M elements, forward + backward

GROUP_NORM = "nn layers (fwd+bwd)"


@timed_case("layer_norm", GROUP_NORM, "LayerNorm(1024)(x).sum().backward()",
            (Point("4M", (4096, 1024), "4096x1024 float32, x requires_grad"),))
def layer_norm(T, shape):
    x = T.randn(*shape, requires_grad=True)
    ln = T.nn.LayerNorm(shape[-1])

    def step():
        ln(x).sum().backward()
        x.grad = ln.weight.grad = ln.bias.grad = None

    return step


@timed_case("batch_norm", GROUP_NORM, "BatchNorm2d(64)(x).sum().backward(), training",
            (Point("4M", (32, 64, 32, 64), "32x64x32x64 float32, x requires_grad"),))
def batch_norm(T, shape):
    x = T.randn(*shape, requires_grad=True)
    bn = T.nn.BatchNorm2d(shape[1])

    def step():
        bn(x).sum().backward()
        x.grad = bn.weight.grad = bn.bias.grad = None

    return step


# --------------------------------------------------------------------------
# recurrent layers: a small LSTM language-model layer, fwd+bwd


@timed_case("lstm_fwd_bwd", GROUP_NORM, "LSTM(32, 128) fwd+bwd",
            (Point("s35b20", (35, 20), "seq 35, batch 20, input 32, hidden 128 float32"),))
def lstm_fwd_bwd(T, shape):
    seed(T)
    lstm = T.nn.LSTM(32, 128)
    x = T.randn(*shape, 32, requires_grad=True)

    def step():
        lstm.zero_grad()
        x.grad = None
        output, _ = lstm(x)
        output.sum().backward()

    return step
