"""The layers, containers and losses of :mod:`gradtrack.nn`."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleList, Sequential
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module

__all__ = ["Module", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "Sequential", "ModuleList", "Flatten", "MSELoss", "NLLLoss", "CrossEntropyLoss"]

# convolution and pooling
from .conv import Conv1d, Conv2d, ConvTranspose2d  # noqa: E402
from .pooling import (  # noqa: E402
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, MaxPool1d,
    MaxPool2d,
)

__all__ += ["Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
            "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]
