"""The fused LSTM layer."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("MkldnnRnnLayer", "MkldnnRnnLayerBackward0", "lstm_layer_bw", saves_result=True),
]
