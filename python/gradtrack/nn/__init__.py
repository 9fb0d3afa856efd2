"""Neural-network building blocks: ``Parameter``, ``Module`` and its layers,
``functional`` and ``init``, with PyTorch's names and behaviour.

>>> import gradtrack
>>> from gradtrack import nn
>>> model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
>>> loss = nn.CrossEntropyLoss()(model(gradtrack.randn(5, 4)), gradtrack.tensor([0, 1, 2, 1, 0]))
>>> loss.backward()
>>> model[0].weight.grad.shape
gradtrack.Size([8, 4])
"""

from . import functional, init
from .modules import (CrossEntropyLoss, Flatten, Identity, Linear, LogSoftmax, Module,
                      ModuleList, MSELoss, NLLLoss, ReLU, Sequential, Sigmoid, Softmax, Tanh)
from .parameter import Parameter

__all__ = ["Parameter", "Module", "Linear", "Identity", "ReLU", "Sigmoid", "Tanh", "Softmax",
           "LogSoftmax", "Sequential", "ModuleList", "Flatten", "MSELoss", "NLLLoss",
           "CrossEntropyLoss", "functional", "init"]

# nn.utils: gradient clipping, parameters <-> vector (training toolkit)
from . import utils  # noqa: E402

__all__ += ["utils"]

# distributed data parallel: nn.parallel.DistributedDataParallel
from . import parallel  # noqa: E402, F401
# convolution and pooling
from .modules import (  # noqa: E402
    AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveMaxPool2d, AvgPool1d, AvgPool2d, Conv1d, Conv2d,
    ConvTranspose2d, MaxPool1d, MaxPool2d,
)

__all__ += ["Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d",
            "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d"]
# ---- nn layers: activations, norms, dropout, embedding, losses, containers ------------------
from .modules import (CELU, ELU, GELU, SELU, BatchNorm1d, BatchNorm2d, BCELoss,  # noqa: E402,I001
                      BCEWithLogitsLoss, Dropout, Embedding, EmbeddingBag, GroupNorm, Hardswish,
                      Hardtanh, HuberLoss, KLDivLoss, L1Loss, LayerNorm, LeakyReLU, LogSigmoid,
                      Mish, ModuleDict, ParameterDict, ParameterList, ReLU6, SiLU, SmoothL1Loss,
                      Softmin, Softplus)

__all__ += ["GELU", "SiLU", "Mish", "Hardswish", "SELU", "CELU", "ReLU6", "LeakyReLU", "ELU",
            "Softplus", "Hardtanh", "LogSigmoid", "Softmin", "BatchNorm1d", "BatchNorm2d",
            "LayerNorm", "GroupNorm", "Dropout", "Embedding", "EmbeddingBag", "BCELoss",
            "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "ModuleDict",
            "ParameterList", "ParameterDict"]
# ---- attention and the transformer --------------------------------------------------------
from .modules import (MultiheadAttention, Transformer, TransformerDecoder,  # noqa: E402
                      TransformerDecoderLayer, TransformerEncoder, TransformerEncoderLayer)

__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerEncoderLayer",
            "TransformerDecoder", "TransformerDecoderLayer"]
# ---- padding and upsampling ---------------------------------------------------------------
from .modules import (  # noqa: E402
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
    CircularPad1d, CircularPad2d, CircularPad3d,
)
from .modules import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
            "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
            "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
            "CircularPad2d", "CircularPad3d", "Upsample", "UpsamplingNearest2d",
            "UpsamplingBilinear2d"]
# ---- recurrent layers: RNN, LSTM, GRU and their cells -------------------------------------
from .modules import (GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell,  # noqa: E402
                      RNNCellBase)

__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
# ---- channel dropouts, shrinks and gates, instance/RMS/LRN norms, shuffles, distances,
# bilinear, embedding/ranking/margin losses
from .modules import (GLU, AlphaDropout, Bilinear, ChannelShuffle,  # noqa: E402
                      CosineEmbeddingLoss, CosineSimilarity, Dropout1d, Dropout2d, Dropout3d,
                      FeatureAlphaDropout, GaussianNLLLoss, Hardshrink, HingeEmbeddingLoss,
                      InstanceNorm1d, InstanceNorm2d, InstanceNorm3d, LocalResponseNorm,
                      MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                      MultiMarginLoss, PairwiseDistance, PixelShuffle, PixelUnshuffle,
                      PoissonNLLLoss, PReLU, RMSNorm, Softmax2d, SoftMarginLoss, Softshrink,
                      Softsign, Tanhshrink, Threshold, TripletMarginLoss,
                      TripletMarginWithDistanceLoss)
from .modules import AdaptiveMaxPool1d, ConvTranspose1d, LPPool1d, LPPool2d, Unflatten  # noqa: E402,I001

__all__ += ["GLU", "Hardshrink", "PReLU", "Softmax2d", "Softshrink", "Softsign", "Tanhshrink",
            "Threshold", "CosineSimilarity", "PairwiseDistance", "AlphaDropout", "Dropout1d",
            "Dropout2d", "Dropout3d", "FeatureAlphaDropout", "InstanceNorm1d", "InstanceNorm2d",
            "InstanceNorm3d", "Bilinear", "CosineEmbeddingLoss", "GaussianNLLLoss",
            "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
            "TripletMarginLoss", "TripletMarginWithDistanceLoss", "LocalResponseNorm", "RMSNorm",
            "ChannelShuffle", "PixelShuffle", "PixelUnshuffle", "ConvTranspose1d",
            "Unflatten", "AdaptiveMaxPool1d", "LPPool1d", "LPPool2d"]
# ---- volumetric convolutions, sliding blocks, unpooling, random activations
from .modules import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool3d,  # noqa: E402
                      MaxPool3d)
from .modules import BatchNorm3d  # noqa: E402
from .modules import (Conv3d, ConvTranspose3d, CTCLoss, Fold, Hardsigmoid, MaxUnpool1d,  # noqa: E402
                      MaxUnpool2d, MaxUnpool3d, RReLU, Unfold)

__all__ += ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d"]
__all__ += ["BatchNorm3d", "Conv3d", "ConvTranspose3d", "CTCLoss", "Hardsigmoid", "RReLU",
            "Fold", "Unfold", "MaxUnpool1d", "MaxUnpool2d", "MaxUnpool3d"]
# ---- lazy modules and the uninitialized tensors they hold
from .modules import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d,  # noqa: E402
                      LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                      LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                      LazyInstanceNorm3d, LazyLinear)
from .parameter import UninitializedBuffer, UninitializedParameter  # noqa: E402

__all__ += ["LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
            "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
            "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
            "UninitializedParameter", "UninitializedBuffer"]
# ---- the adaptive softmax, the synchronized batch norm, DataParallel
from .modules import AdaptiveLogSoftmaxWithLoss, SyncBatchNorm  # noqa: E402
from .parallel import DataParallel  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss", "SyncBatchNorm", "DataParallel"]
from .modules import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .modules import Container, NLLLoss2d  # noqa: E402

__all__ += ["Container", "NLLLoss2d"]
from .parameter import Buffer  # noqa: E402

__all__ += ["Buffer"]
from .modules import CrossMapLRN2d  # noqa: E402

__all__ += ["CrossMapLRN2d"]
from .modules import LinearCrossEntropyLoss  # noqa: E402

__all__ += ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


def __getattr__(name):
    # A dataclass, as torch's: its module (dataclasses imports inspect) loads on first use.
    if name == "LinearCrossEntropyOptions":
        from ._linear_cross_entropy_options import LinearCrossEntropyOptions
        globals()[name] = LinearCrossEntropyOptions
        return LinearCrossEntropyOptions
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
from ._factory_kwargs import factory_kwargs  # noqa: E402

__all__ += ["factory_kwargs"]
