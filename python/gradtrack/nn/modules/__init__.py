"""The layers, containers and losses of :mod:`gradtrack.nn`."""

from .activation import LogSoftmax, ReLU, Sigmoid, Softmax, Tanh
from .container import ModuleList, Sequential
from .flatten import Flatten
from .linear import Identity, Linear
from .loss import CrossEntropyLoss, MSELoss, NLLLoss
from .module import Module

__all__ = ["Module", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "Sequential", "ModuleList", "Flatten", "MSELoss", "NLLLoss", "CrossEntropyLoss"]
