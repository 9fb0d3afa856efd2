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
# ---- nn layers: activations, norms, dropout, embedding, losses, containers ------------------
from .activation import (CELU, ELU, GELU, SELU, Hardswish, Hardtanh, LeakyReLU,  # noqa: E402,I001
                         LogSigmoid, Mish, ReLU6, SiLU, Softmin, Softplus)
from .batchnorm import BatchNorm1d, BatchNorm2d  # noqa: E402
from .container import ModuleDict, ParameterDict, ParameterList  # noqa: E402
from .dropout import Dropout  # noqa: E402
from .loss import (BCELoss, BCEWithLogitsLoss, HuberLoss, KLDivLoss, L1Loss,  # noqa: E402
                   SmoothL1Loss)
from .normalization import GroupNorm, LayerNorm  # noqa: E402
from .sparse import Embedding, EmbeddingBag  # noqa: E402

__all__ += ["GELU", "SiLU", "Mish", "Hardswish", "SELU", "CELU", "ReLU6", "LeakyReLU", "ELU",
            "Softplus", "Hardtanh", "LogSigmoid", "Softmin", "BatchNorm1d", "BatchNorm2d",
            "LayerNorm", "GroupNorm", "Dropout", "Embedding", "EmbeddingBag", "BCELoss",
            "BCEWithLogitsLoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss", "ModuleDict",
            "ParameterList", "ParameterDict"]
# ---- attention and the transformer --------------------------------------------------------
from .attention import MultiheadAttention  # noqa: E402
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,  # noqa: E402
                          TransformerEncoder, TransformerEncoderLayer)

__all__ += ["MultiheadAttention", "Transformer", "TransformerEncoder", "TransformerEncoderLayer",
            "TransformerDecoder", "TransformerDecoderLayer"]
# ---- padding and upsampling ---------------------------------------------------------------
from .padding import (  # noqa: E402
    ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d, ZeroPad2d, ZeroPad3d,
    ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d, ReplicationPad2d, ReplicationPad3d,
    CircularPad1d, CircularPad2d, CircularPad3d,
)
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d  # noqa: E402

__all__ += ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
            "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
            "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
            "CircularPad2d", "CircularPad3d", "Upsample", "UpsamplingNearest2d",
            "UpsamplingBilinear2d"]
# ---- recurrent layers: RNN, LSTM, GRU and their cells -------------------------------------
from .rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]
# ---- channel dropouts, shrinks and gates, instance/RMS/LRN norms, shuffles, distances,
# bilinear, embedding/ranking/margin losses
from .activation import (GLU, Hardshrink, PReLU, Softmax2d, Softshrink, Softsign,  # noqa: E402
                         Tanhshrink, Threshold)
from .distance import CosineSimilarity, PairwiseDistance  # noqa: E402
from .dropout import (AlphaDropout, Dropout1d, Dropout2d, Dropout3d,  # noqa: E402
                      FeatureAlphaDropout)
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d  # noqa: E402
from .linear import Bilinear  # noqa: E402
from .loss import (CosineEmbeddingLoss, GaussianNLLLoss, HingeEmbeddingLoss,  # noqa: E402
                   MarginRankingLoss, MultiLabelMarginLoss, MultiLabelSoftMarginLoss,
                   MultiMarginLoss, PoissonNLLLoss, SoftMarginLoss, TripletMarginLoss,
                   TripletMarginWithDistanceLoss)
from .normalization import LocalResponseNorm, RMSNorm  # noqa: E402
from .pixelshuffle import ChannelShuffle, PixelShuffle, PixelUnshuffle  # noqa: E402
from .conv import Conv3d, ConvTranspose1d, ConvTranspose3d  # noqa: E402
from .flatten import Unflatten  # noqa: E402
from .pooling import AdaptiveMaxPool1d, LPPool1d, LPPool2d  # noqa: E402

__all__ += ["GLU", "Hardshrink", "PReLU", "Softmax2d", "Softshrink", "Softsign", "Tanhshrink",
            "Threshold", "CosineSimilarity", "PairwiseDistance", "AlphaDropout", "Dropout1d",
            "Dropout2d", "Dropout3d", "FeatureAlphaDropout", "InstanceNorm1d", "InstanceNorm2d",
            "InstanceNorm3d", "Bilinear", "CosineEmbeddingLoss", "GaussianNLLLoss",
            "HingeEmbeddingLoss", "MarginRankingLoss", "MultiLabelMarginLoss",
            "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PoissonNLLLoss", "SoftMarginLoss",
            "TripletMarginLoss", "TripletMarginWithDistanceLoss", "LocalResponseNorm", "RMSNorm",
            "ChannelShuffle", "PixelShuffle", "PixelUnshuffle", "ConvTranspose1d", "Conv3d",
            "ConvTranspose3d",
            "Unflatten", "AdaptiveMaxPool1d", "LPPool1d", "LPPool2d"]
# ---- volumetric convolutions, sliding blocks, unpooling, random activations
from .activation import Hardsigmoid, RReLU  # noqa: E402
from .batchnorm import BatchNorm3d  # noqa: E402
from .loss import CTCLoss  # noqa: E402
from .pooling3d import (AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, LPPool3d,  # noqa: E402
                        MaxPool3d)
from .fold import Fold, Unfold  # noqa: E402
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d  # noqa: E402

__all__ += ["MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "LPPool3d"]
__all__ += ["BatchNorm3d", "CTCLoss", "Hardsigmoid", "RReLU", "Fold", "Unfold", "MaxUnpool1d",
            "MaxUnpool2d", "MaxUnpool3d"]
# ---- lazy modules: parameter shapes from the first input
from .lazy import (LazyBatchNorm1d, LazyBatchNorm2d, LazyBatchNorm3d, LazyConv1d,  # noqa: E402
                   LazyConv2d, LazyConv3d, LazyConvTranspose1d, LazyConvTranspose2d,
                   LazyConvTranspose3d, LazyInstanceNorm1d, LazyInstanceNorm2d,
                   LazyInstanceNorm3d, LazyLinear, LazyModuleMixin)

__all__ += ["LazyModuleMixin", "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d",
            "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d",
            "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyInstanceNorm1d",
            "LazyInstanceNorm2d", "LazyInstanceNorm3d"]
# ---- the adaptive softmax and the synchronized batch norm
from .adaptive import AdaptiveLogSoftmaxWithLoss  # noqa: E402
from .batchnorm import SyncBatchNorm  # noqa: E402

__all__ += ["AdaptiveLogSoftmaxWithLoss", "SyncBatchNorm"]
from .fractional_pooling import FractionalMaxPool2d, FractionalMaxPool3d  # noqa: E402

__all__ += ["FractionalMaxPool2d", "FractionalMaxPool3d"]
from .container import Container  # noqa: E402
from .loss import NLLLoss2d  # noqa: E402

__all__ += ["Container", "NLLLoss2d"]
from .normalization import CrossMapLRN2d  # noqa: E402

__all__ += ["CrossMapLRN2d"]
from .linear_cross_entropy import LinearCrossEntropyLoss  # noqa: E402

__all__ += ["LinearCrossEntropyLoss"]
