"""Every layer of gradtrack.nn, its gradients against torch's (the layers list of the rule
"every op, every in-place variant and every layer gets a differential gradient test").

One row per module class: a constructor (the same call for both libraries) and inputs.
torch's module is built first; its parameters and buffers are copied into gradtrack's
(float64), both run forward on the same inputs in train mode (dropout p=0 or eval), and
every float output is pulled back with the same random upstream gradient. Compared: the
output values, ``grad_fn`` name, parameter names, the gradient of every input and
parameter, and buffers after the step (batch-norm running stats). The last test holds the
table to ``gradtrack.nn``: a module class without a row fails it.
"""

import inspect
import zlib

import numpy as np
import pytest

import gradtrack

torch = pytest.importorskip("torch")

# Classes that hold or organize modules rather than compute (their children have rows).
CONTAINERS = {"Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
              "ParameterDict", "RNNBase", "RNNCellBase"}



def X(*shape, lo=-2.0, hi=2.0):
    """A float input of ``shape`` that requires grad."""
    return ("float", shape, lo, hi)


def I(*shape, high=5):  # noqa: E743 - short like X
    """An int64 input (indices, class targets) with values in [0, high)."""
    return ("int", shape, 0, high)


def P(*shape):
    """Probabilities in (0.05, 0.95) that do not require grad (loss targets)."""
    return ("prob", shape, 0.05, 0.95)


def SGN(*shape):
    """Targets of -1 and 1 that do not require grad (embedding and margin losses)."""
    return ("sign", shape, -1, 1)


def U(*shape, lo=0.0, hi=1.0):
    """A float input in [lo, hi) that does not require grad (targets)."""
    return ("target", shape, lo, hi)


def FIXED(values):
    """An int64 input with exactly these values (multi-label targets)."""
    return ("fixed", values, 0, 0)


def _lib(nn):
    """torch or gradtrack, whichever ``nn`` belongs to."""
    return torch if nn is torch.nn else gradtrack


def _lazy(nn, module, *shape):
    """``module`` after its first call on zeros of ``shape`` (its shapes then known)."""
    with _lib(nn).no_grad():
        module(_lib(nn).zeros(*shape))
    return module


def _samples(nn, *shape):
    """Fixed fractional-pooling samples in [0.05, 0.95)."""
    values = np.random.default_rng(3).uniform(0.05, 0.95, size=shape)
    return _lib(nn).tensor(values, dtype=_lib(nn).float64)


def enc_layer(nn):
    return nn.TransformerEncoderLayer(4, 2, 8, dropout=0.0, batch_first=True)


def dec_layer(nn):
    return nn.TransformerDecoderLayer(4, 2, 8, dropout=0.0, batch_first=True)


# name -> (constructor from the nn module, inputs, eval mode)
ROWS = {
    "AdaptiveAvgPool1d": (lambda nn: nn.AdaptiveAvgPool1d(3), [X(2, 4, 7)], False),
    "AdaptiveAvgPool2d": (lambda nn: nn.AdaptiveAvgPool2d((2, 3)), [X(2, 3, 5, 7)], False),
    "AdaptiveMaxPool2d": (lambda nn: nn.AdaptiveMaxPool2d((2, 3)), [X(2, 3, 5, 7)], False),
    "AvgPool1d": (lambda nn: nn.AvgPool1d(3, stride=2, padding=1), [X(2, 3, 9)], False),
    "AvgPool2d": (lambda nn: nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
                  [X(2, 3, 6, 6)], False),
    "BCELoss": (lambda nn: nn.BCELoss(), [X(3, 4, lo=0.05, hi=0.95), P(3, 4)], False),
    "BCEWithLogitsLoss": (lambda nn: nn.BCEWithLogitsLoss(), [X(3, 4), P(3, 4)], False),
    "BatchNorm1d": (lambda nn: nn.BatchNorm1d(4), [X(5, 4)], False),
    "BatchNorm2d": (lambda nn: nn.BatchNorm2d(3), [X(2, 3, 4, 4)], False),
    "CELU": (lambda nn: nn.CELU(alpha=0.7), [X(3, 4)], False),
    "CircularPad1d": (lambda nn: nn.CircularPad1d(2), [X(2, 3, 5)], False),
    "CircularPad2d": (lambda nn: nn.CircularPad2d((1, 2, 1, 0)), [X(2, 3, 4, 5)], False),
    "CircularPad3d": (lambda nn: nn.CircularPad3d(1), [X(1, 2, 3, 4, 5)], False),
    "ConstantPad1d": (lambda nn: nn.ConstantPad1d((1, 2), 0.5), [X(2, 3, 5)], False),
    "ConstantPad2d": (lambda nn: nn.ConstantPad2d(1, -1.0), [X(2, 3, 4)], False),
    "ConstantPad3d": (lambda nn: nn.ConstantPad3d((1, 0, 0, 1, 1, 1), 0.25),
                      [X(1, 2, 3, 4, 5)], False),
    "Conv1d": (lambda nn: nn.Conv1d(3, 4, 3, padding=1), [X(2, 3, 8)], False),
    "Conv2d": (lambda nn: nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), [X(2, 4, 7, 7)],
               False),
    "ConvTranspose2d": (lambda nn: nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1),
                        [X(2, 3, 4, 4)], False),
    "CrossEntropyLoss": (lambda nn: nn.CrossEntropyLoss(label_smoothing=0.1),
                         [X(4, 5), I(4, high=5)], False),
    "LinearCrossEntropyLoss": (lambda nn: nn.LinearCrossEntropyLoss(4, 5, bias=True),
                               [X(3, 4), I(3, high=5)], False),
    "Dropout": (lambda nn: nn.Dropout(0.3), [X(3, 4)], True),
    "ELU": (lambda nn: nn.ELU(alpha=0.5), [X(3, 4)], False),
    "Embedding": (lambda nn: nn.Embedding(10, 3, padding_idx=0), [I(2, 4, high=10)], False),
    "EmbeddingBag": (lambda nn: nn.EmbeddingBag(10, 3, mode="mean"), [I(2, 4, high=10)],
                     False),
    "Flatten": (lambda nn: nn.Flatten(), [X(2, 3, 4)], False),
    "GELU": (lambda nn: nn.GELU(approximate="tanh"), [X(3, 4)], False),
    "GRU": (lambda nn: nn.GRU(3, 4, num_layers=2, batch_first=True), [X(2, 5, 3)], False),
    "GRUCell": (lambda nn: nn.GRUCell(3, 4), [X(2, 3)], False),
    "GroupNorm": (lambda nn: nn.GroupNorm(2, 4), [X(2, 4, 3)], False),
    "Hardswish": (lambda nn: nn.Hardswish(), [X(3, 4, lo=-4, hi=4)], False),
    "Hardtanh": (lambda nn: nn.Hardtanh(-0.5, 0.5), [X(3, 4)], False),
    "HuberLoss": (lambda nn: nn.HuberLoss(delta=0.5), [X(3, 4), X(3, 4)], False),
    "Identity": (lambda nn: nn.Identity(), [X(3, 4)], False),
    "KLDivLoss": (lambda nn: nn.KLDivLoss(reduction="batchmean"), [X(3, 4, lo=-3, hi=-0.1),
                                                                  P(3, 4)], False),
    "L1Loss": (lambda nn: nn.L1Loss(), [X(3, 4), X(3, 4)], False),
    "LSTM": (lambda nn: nn.LSTM(3, 4, batch_first=True), [X(2, 5, 3)], False),
    "LSTMCell": (lambda nn: nn.LSTMCell(3, 4), [X(2, 3)], False),
    "LayerNorm": (lambda nn: nn.LayerNorm(4), [X(2, 3, 4)], False),
    "LeakyReLU": (lambda nn: nn.LeakyReLU(0.1), [X(3, 4)], False),
    "Linear": (lambda nn: nn.Linear(3, 4), [X(2, 5, 3)], False),
    "LogSigmoid": (lambda nn: nn.LogSigmoid(), [X(3, 4)], False),
    "LogSoftmax": (lambda nn: nn.LogSoftmax(dim=1), [X(3, 4)], False),
    "MSELoss": (lambda nn: nn.MSELoss(reduction="sum"), [X(3, 4), X(3, 4)], False),
    "MaxPool1d": (lambda nn: nn.MaxPool1d(2), [X(2, 3, 8)], False),
    "MaxPool2d": (lambda nn: nn.MaxPool2d(3, stride=2, padding=1), [X(2, 3, 6, 6)], False),
    "Mish": (lambda nn: nn.Mish(), [X(3, 4)], False),
    "MultiheadAttention": (lambda nn: nn.MultiheadAttention(4, 2, batch_first=True),
                           [X(2, 3, 4), X(2, 5, 4), X(2, 5, 4)], False),
    "NLLLoss": (lambda nn: nn.NLLLoss(), [X(4, 5, lo=-3, hi=-0.1), I(4, high=5)], False),
    "NLLLoss2d": (lambda nn: nn.NLLLoss2d(), [X(4, 3, lo=-3, hi=-0.1), I(4, high=3)], False),
    "RNN": (lambda nn: nn.RNN(3, 4, num_layers=2, nonlinearity="relu"), [X(5, 2, 3)], False),
    "RNNCell": (lambda nn: nn.RNNCell(3, 4), [X(2, 3)], False),
    "ReLU": (lambda nn: nn.ReLU(), [X(3, 4)], False),
    "ReLU6": (lambda nn: nn.ReLU6(), [X(3, 4, lo=-8, hi=8)], False),
    "ReflectionPad1d": (lambda nn: nn.ReflectionPad1d(2), [X(2, 3, 5)], False),
    "ReflectionPad2d": (lambda nn: nn.ReflectionPad2d((1, 2, 0, 1)), [X(2, 3, 4, 5)], False),
    "ReflectionPad3d": (lambda nn: nn.ReflectionPad3d(1), [X(1, 2, 3, 4, 5)], False),
    "ReplicationPad1d": (lambda nn: nn.ReplicationPad1d(2), [X(2, 3, 5)], False),
    "ReplicationPad2d": (lambda nn: nn.ReplicationPad2d((1, 2, 0, 1)), [X(2, 3, 4, 5)], False),
    "ReplicationPad3d": (lambda nn: nn.ReplicationPad3d(1), [X(1, 2, 3, 4, 5)], False),
    "SELU": (lambda nn: nn.SELU(), [X(3, 4)], False),
    "SiLU": (lambda nn: nn.SiLU(), [X(3, 4)], False),
    "Sigmoid": (lambda nn: nn.Sigmoid(), [X(3, 4)], False),
    "SmoothL1Loss": (lambda nn: nn.SmoothL1Loss(beta=0.5), [X(3, 4), X(3, 4)], False),
    "Softmax": (lambda nn: nn.Softmax(dim=-1), [X(3, 4)], False),
    "Softmin": (lambda nn: nn.Softmin(dim=1), [X(3, 4)], False),
    "Softplus": (lambda nn: nn.Softplus(beta=2, threshold=5), [X(3, 4, lo=-4, hi=4)], False),
    "Tanh": (lambda nn: nn.Tanh(), [X(3, 4)], False),
    "Transformer": (lambda nn: nn.Transformer(4, 2, 1, 1, 8, dropout=0.0, batch_first=True),
                    [X(2, 3, 4), X(2, 2, 4)], False),
    "TransformerDecoder": (lambda nn: nn.TransformerDecoder(dec_layer(nn), 2),
                           [X(2, 2, 4), X(2, 3, 4)], False),
    "TransformerDecoderLayer": (dec_layer, [X(2, 2, 4), X(2, 3, 4)], False),
    "TransformerEncoder": (lambda nn: nn.TransformerEncoder(enc_layer(nn), 2,
                                                            enable_nested_tensor=False),
                           [X(2, 3, 4)], False),
    "TransformerEncoderLayer": (enc_layer, [X(2, 3, 4)], False),
    "Upsample": (lambda nn: nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                 [X(1, 2, 3, 3)], False),
    "UpsamplingBilinear2d": (lambda nn: nn.UpsamplingBilinear2d(scale_factor=2),
                             [X(1, 2, 3, 3)], False),
    "UpsamplingNearest2d": (lambda nn: nn.UpsamplingNearest2d(size=(5, 4)), [X(1, 2, 3, 3)],
                            False),
    "ZeroPad1d": (lambda nn: nn.ZeroPad1d(2), [X(2, 3, 5)], False),
    # channel dropouts (eval mode here; seeded training masks in test_dropout_channels.py)
    "AlphaDropout": (lambda nn: nn.AlphaDropout(0.3), [X(3, 4)], True),
    "FeatureAlphaDropout": (lambda nn: nn.FeatureAlphaDropout(0.3), [X(2, 3, 4)], True),
    "Dropout1d": (lambda nn: nn.Dropout1d(0.3), [X(2, 3, 4)], True),
    "Dropout2d": (lambda nn: nn.Dropout2d(0.3), [X(2, 3, 4, 4)], True),
    "Dropout3d": (lambda nn: nn.Dropout3d(0.3), [X(1, 2, 3, 3, 3)], True),
    # shrinks, gates, per-channel slopes
    "Hardshrink": (lambda nn: nn.Hardshrink(0.5), [X(3, 4)], False),
    "Softshrink": (lambda nn: nn.Softshrink(0.5), [X(3, 4)], False),
    "Tanhshrink": (lambda nn: nn.Tanhshrink(), [X(3, 4)], False),
    "Softsign": (lambda nn: nn.Softsign(), [X(3, 4)], False),
    "Threshold": (lambda nn: nn.Threshold(0.1, 20.0), [X(3, 4)], False),
    "GLU": (lambda nn: nn.GLU(1), [X(3, 4)], False),
    "Softmax2d": (lambda nn: nn.Softmax2d(), [X(2, 3, 2, 2)], False),
    "PReLU": (lambda nn: nn.PReLU(3, 0.2), [X(2, 3, 4)], False),
    # norms
    "InstanceNorm1d": (lambda nn: nn.InstanceNorm1d(3, affine=True), [X(2, 3, 5)], False),
    "InstanceNorm2d": (lambda nn: nn.InstanceNorm2d(3, track_running_stats=True),
                       [X(2, 3, 3, 3)], False),
    "InstanceNorm3d": (lambda nn: nn.InstanceNorm3d(2, affine=True), [X(1, 2, 2, 3, 3)],
                       False),
    "RMSNorm": (lambda nn: nn.RMSNorm(4), [X(2, 3, 4)], False),
    "LocalResponseNorm": (lambda nn: nn.LocalResponseNorm(3), [X(2, 5, 3, 3)], False),
    # rearrangements, distances, bilinear
    "PixelShuffle": (lambda nn: nn.PixelShuffle(2), [X(1, 8, 2, 3)], False),
    "PixelUnshuffle": (lambda nn: nn.PixelUnshuffle(2), [X(1, 2, 4, 6)], False),
    "ChannelShuffle": (lambda nn: nn.ChannelShuffle(2), [X(2, 4, 3)], False),
    "PairwiseDistance": (lambda nn: nn.PairwiseDistance(), [X(3, 4), X(3, 4)], False),
    "CosineSimilarity": (lambda nn: nn.CosineSimilarity(), [X(3, 4), X(3, 4)], False),
    "Bilinear": (lambda nn: nn.Bilinear(3, 4, 5), [X(2, 3), X(2, 4)], False),
    "AdaptiveMaxPool1d": (lambda nn: nn.AdaptiveMaxPool1d(3), [X(2, 3, 8)], False),
    "LPPool1d": (lambda nn: nn.LPPool1d(2, 3, stride=2), [X(2, 3, 7)], False),
    "LPPool2d": (lambda nn: nn.LPPool2d(1.5, 2), [X(1, 2, 4, 4, lo=0.1, hi=2.0)], False),
    "Unflatten": (lambda nn: nn.Unflatten(1, (2, 3)), [X(4, 6)], False),
    "ConvTranspose1d": (lambda nn: nn.ConvTranspose1d(3, 4, 3, stride=2, padding=1,
                                                      output_padding=1, groups=1),
                        [X(2, 3, 6)], False),
    # embedding, ranking and margin losses; Poisson and Gaussian likelihoods
    "CosineEmbeddingLoss": (lambda nn: nn.CosineEmbeddingLoss(0.2),
                            [X(3, 4), X(3, 4), SGN(3)], False),
    "MarginRankingLoss": (lambda nn: nn.MarginRankingLoss(0.3), [X(5), X(5), SGN(5)], False),
    "HingeEmbeddingLoss": (lambda nn: nn.HingeEmbeddingLoss(), [X(3, 4), SGN(3, 4)], False),
    "PoissonNLLLoss": (lambda nn: nn.PoissonNLLLoss(full=True),
                       [X(3, 4), U(3, 4, lo=0.0, hi=4.0)], False),
    "GaussianNLLLoss": (lambda nn: nn.GaussianNLLLoss(),
                        [X(3, 4), X(3, 4), X(3, 4, lo=0.2, hi=1.5)], False),
    "MultiMarginLoss": (lambda nn: nn.MultiMarginLoss(p=2, margin=0.7),
                        [X(4, 5), I(4, high=5)], False),
    "SoftMarginLoss": (lambda nn: nn.SoftMarginLoss(), [X(3, 4), SGN(3, 4)], False),
    "MultiLabelSoftMarginLoss": (lambda nn: nn.MultiLabelSoftMarginLoss(), [X(3, 4), P(3, 4)],
                                 False),
    "MultiLabelMarginLoss": (lambda nn: nn.MultiLabelMarginLoss(),
                             [X(3, 4), FIXED([[3, 0, -1, 1], [1, 2, 3, -1], [-1, 0, 0, 0]])],
                             False),
    "TripletMarginLoss": (lambda nn: nn.TripletMarginLoss(margin=0.5, swap=True),
                          [X(3, 4), X(3, 4), X(3, 4)], False),
    "TripletMarginWithDistanceLoss": (lambda nn: nn.TripletMarginWithDistanceLoss(),
                                      [X(3, 4), X(3, 4), X(3, 4)], False),
    # volumetric convolutions, sliding blocks, unpooling, random activations
    "Conv3d": (lambda nn: nn.Conv3d(4, 6, (3, 2, 3), stride=(2, 1, 1), padding=(1, 0, 1),
                                    dilation=(1, 2, 1), groups=2), [X(2, 4, 5, 6, 5)], False),
    "ConvTranspose3d": (lambda nn: nn.ConvTranspose3d(3, 4, (2, 3, 2), stride=2, padding=1,
                                                      output_padding=(1, 0, 1)),
                        [X(2, 3, 3, 4, 3)], False),
    "CTCLoss": (lambda nn: nn.CTCLoss(blank=0), [X(6, 2, 5), FIXED([[1, 2, 2], [4, 3, 0]]),
                                                   FIXED([6, 5]), FIXED([3, 2])], False),
    "MaxPool3d": (lambda nn: nn.MaxPool3d((2, 3, 2), stride=(1, 2, 2), padding=(1, 1, 0),
                                          ceil_mode=True), [X(2, 2, 4, 5, 5)], False),
    "AvgPool3d": (lambda nn: nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=False,
                                          ceil_mode=True), [X(1, 2, 5, 6, 4)], False),
    "AdaptiveAvgPool3d": (lambda nn: nn.AdaptiveAvgPool3d((2, None, 3)), [X(2, 2, 5, 4, 7)],
                          False),
    "AdaptiveMaxPool3d": (lambda nn: nn.AdaptiveMaxPool3d((3, 2, 2)), [X(1, 3, 5, 4, 5)], False),
    "LPPool3d": (lambda nn: nn.LPPool3d(2, (2, 2, 1)), [X(1, 2, 4, 4, 3)], False),
    "BatchNorm3d": (lambda nn: nn.BatchNorm3d(3, momentum=0.3), [X(2, 3, 2, 3, 4)], False),
    "Hardsigmoid": (lambda nn: nn.Hardsigmoid(), [X(3, 5, lo=-4.0, hi=4.0)], False),
    # training-mode draws are compared in test_layer_draws.py (this table seeds torch only)
    "RReLU": (lambda nn: nn.RReLU(0.1, 0.4), [X(3, 5)], True),
    "Unfold": (lambda nn: nn.Unfold((2, 3), dilation=(1, 2), padding=1, stride=(2, 1)),
               [X(2, 3, 5, 6)], False),
    "Fold": (lambda nn: nn.Fold((4, 5), (2, 2), padding=(1, 0), stride=(1, 2)),
             [X(2, 8, 10)], False),
    "MaxUnpool1d": (lambda nn: nn.MaxUnpool1d(2), [X(2, 3), FIXED([[1, 2, 5], [0, 3, 4]])],
                    False),
    "MaxUnpool2d": (lambda nn: nn.MaxUnpool2d(2), [X(1, 2, 2, 2),
                                                   FIXED([[[[0, 3], [9, 14]],
                                                           [[5, 2], [8, 15]]]])], False),
    "MaxUnpool3d": (lambda nn: nn.MaxUnpool3d(2), [X(1, 1, 1, 2, 1),
                                                   FIXED([[[[[5], [13]]]]])], False),
    "ZeroPad2d": (lambda nn: nn.ZeroPad2d((1, 0, 2, 1)), [X(2, 3, 4)], False),
    "ZeroPad3d": (lambda nn: nn.ZeroPad3d(1), [X(1, 2, 3, 4, 5)], False),
    # lazy modules: materialized by a first call, then the layer they became
    "LazyLinear": (lambda nn: _lazy(nn, nn.LazyLinear(3), 2, 4), [X(2, 4)], False),
    "LazyConv1d": (lambda nn: _lazy(nn, nn.LazyConv1d(4, 3, padding=1), 1, 2, 5),
                   [X(2, 2, 6)], False),
    "LazyConv2d": (lambda nn: _lazy(nn, nn.LazyConv2d(4, 3, groups=2), 1, 2, 5, 5),
                   [X(2, 2, 5, 6)], False),
    "LazyConv3d": (lambda nn: _lazy(nn, nn.LazyConv3d(2, 2), 1, 3, 3, 3, 3),
                   [X(1, 3, 3, 4, 3)], False),
    "LazyConvTranspose1d": (lambda nn: _lazy(nn, nn.LazyConvTranspose1d(3, 3, stride=2), 2, 5),
                            [X(2, 2, 5)], False),
    "LazyConvTranspose2d": (lambda nn: _lazy(nn, nn.LazyConvTranspose2d(2, 2), 1, 3, 3, 3),
                            [X(2, 3, 3, 4)], False),
    "LazyConvTranspose3d": (lambda nn: _lazy(nn, nn.LazyConvTranspose3d(2, 2, bias=False),
                                             1, 2, 2, 2, 2), [X(1, 2, 2, 3, 2)], False),
    "LazyBatchNorm1d": (lambda nn: _lazy(nn, nn.LazyBatchNorm1d(momentum=0.3), 2, 3),
                        [X(4, 3)], False),
    "LazyBatchNorm2d": (lambda nn: _lazy(nn, nn.LazyBatchNorm2d(), 2, 3, 2, 2),
                        [X(2, 3, 3, 2)], False),
    "LazyBatchNorm3d": (lambda nn: _lazy(nn, nn.LazyBatchNorm3d(affine=False), 2, 2, 2, 2, 2),
                        [X(2, 2, 2, 3, 2)], False),
    "LazyInstanceNorm1d": (lambda nn: _lazy(nn, nn.LazyInstanceNorm1d(), 2, 3, 4),
                           [X(2, 3, 5)], False),
    "LazyInstanceNorm2d": (lambda nn: _lazy(nn, nn.LazyInstanceNorm2d(momentum=0.2),
                                            2, 3, 3, 3), [X(2, 3, 3, 4)], False),
    "LazyInstanceNorm3d": (lambda nn: _lazy(nn, nn.LazyInstanceNorm3d(track_running_stats=False),
                                            1, 2, 2, 2, 2), [X(2, 2, 2, 3, 2)], False),
    "AdaptiveLogSoftmaxWithLoss": (
        lambda nn: nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6], div_value=2.0, head_bias=True),
        [X(6, 8), FIXED([0, 4, 9, 2, 7, 5])], False),
    "FractionalMaxPool2d": (
        lambda nn: nn.FractionalMaxPool2d((2, 3), output_size=(3, 4),
                                          _random_samples=_samples(nn, 2, 3, 2)),
        [X(2, 3, 7, 9)], False),
    "FractionalMaxPool3d": (
        lambda nn: nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.6, 0.5),
                                          _random_samples=_samples(nn, 1, 2, 3)),
        [X(1, 2, 6, 5, 6)], False),
    "CrossMapLRN2d": (lambda nn: nn.CrossMapLRN2d(3, alpha=0.5, beta=0.8, k=2),
                      [X(2, 5, 3, 2)], False),
    "SyncBatchNorm": (lambda nn: nn.SyncBatchNorm(3, momentum=0.2), [X(4, 3, 2)], False),
    "DataParallel": (lambda nn: nn.DataParallel(nn.Linear(3, 2)), [X(4, 3)], False),
}


def _arrays(name, inputs):
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    out = []
    for kind, shape, lo, hi in inputs:
        if kind == "int":
            out.append(rng.integers(lo, hi, size=shape))
        elif kind == "sign":
            out.append(rng.choice([-1.0, 1.0], size=shape))
        elif kind == "fixed":
            out.append(np.array(shape, dtype=np.int64))
        else:
            out.append(rng.uniform(lo, hi, size=shape))
    return out


def _state(module):
    state = dict(module.named_parameters())
    state.update(dict(module.named_buffers()))
    return {k: v.detach().numpy().copy() for k, v in state.items()}


def _run(lib, name, start=None):
    """Forward + backward of row ``name`` on ``lib``, from torch's initial state ``start``
    (None: this is torch): (initial state, outputs, grads by name, buffers after)."""
    make, inputs, eval_mode = ROWS[name]
    torch.manual_seed(0)
    module = make(lib.nn).double()
    if start is not None:
        mine = dict(module.named_parameters())
        mine.update(dict(module.named_buffers()))
        assert sorted(mine) == sorted(start)
        with lib.no_grad():
            for key, value in mine.items():
                value.copy_(lib.tensor(start[key]))
    initial = _state(module)
    if eval_mode:
        module.eval()
    xs = []
    for (kind, *_), arr in zip(inputs, _arrays(name, inputs)):
        t = lib.tensor(arr)
        if kind == "float":
            t.requires_grad_()
        xs.append(t)
    out = module(*xs)
    outs = [o for o in (out if isinstance(out, tuple) else (out,))
            if o is not None and not isinstance(o, tuple) and o.dtype.is_floating_point]
    if isinstance(out, tuple):  # RNN hidden states: (h, c) pairs
        outs += [o for o in out if isinstance(o, tuple) for o in o]
    rng = np.random.default_rng(7)
    upstream = [lib.tensor(rng.standard_normal(tuple(o.shape))) for o in outs]
    params = dict(module.named_parameters())
    wrt = [x for x in xs if x.requires_grad] + list(params.values())
    grads = lib.autograd.grad(outs, wrt, upstream, allow_unused=True)
    names = [f"input{k}" for k, x in enumerate(xs) if x.requires_grad] + list(params)
    buffers = {k: v.detach().numpy().copy() for k, v in module.named_buffers()}
    return initial, outs, dict(zip(names, grads)), buffers


@pytest.mark.parametrize("name", sorted(ROWS))
def test_module_gradients_match_torch(name):
    start, t_outs, t_grads, t_buf = _run(torch, name)
    _, g_outs, g_grads, g_buf = _run(gradtrack, name, start)
    assert len(g_outs) == len(t_outs)
    for g, t in zip(g_outs, t_outs):
        assert type(g.grad_fn).__name__ == type(t.grad_fn).__name__
        np.testing.assert_allclose(g.detach().numpy(), t.detach().numpy(), rtol=1e-7,
                                   atol=1e-9)
    assert list(g_grads) == list(t_grads)
    for key in t_grads:
        g, t = g_grads[key], t_grads[key]
        assert (g is None) == (t is None), key
        if t is not None:
            np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-7, atol=1e-9,
                                       err_msg=f"gradient of {key}")
    for key in t_buf:
        np.testing.assert_allclose(g_buf[key], t_buf[key], rtol=1e-7, atol=1e-9,
                                   err_msg=f"buffer {key}")


def test_every_module_of_gradtrack_nn_has_a_row():
    classes = {n for n, o in vars(gradtrack.nn).items()
               if inspect.isclass(o) and issubclass(o, gradtrack.nn.Module)}
    assert sorted(classes - CONTAINERS - set(ROWS)) == []
    assert sorted(set(ROWS) - classes) == []
