"""Convolution and pooling (PyTorch saves input and weight whenever any of the three gradients is needed)."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Convolution", "ConvolutionBackward0", "convolution_bw", "convolution_jvp",
               saves={0: "012", 1: "012"}),
    Derivative("ConvolutionNoBias", "ConvolutionBackward0", "convolution_bw", "convolution_jvp",
               saves={0: "012", 1: "012"}, wrapped_number_edge=True),
    Derivative("ConvolutionBackward", "ConvolutionBackwardBackward0", "convolution_backward_bw",
               saves={0: "012", 1: "012", 2: "012"}, takes_absent_grads=True),
    Derivative("MaxPool2DWithIndices", "MaxPool2DWithIndicesBackward0", "max_pool2d_bw", "max_pool_jvp",
               saves={0: "0"}),
    Derivative("MaxPool2DWithIndicesBackward", "MaxPool2DWithIndicesBackwardBackward0", "max_pool2d_backward_bw",
               ),
    Derivative("AvgPool2D", "AvgPool2DBackward0", "avg_pool2d_bw", "avg_pool_jvp", saves={0: "0"}),
    Derivative("AvgPool2DBackward", "AvgPool2DBackwardBackward0", "avg_pool2d_backward_bw"),
    Derivative("AdaptiveAvgPool2D", "AdaptiveAvgPool2DBackward0", "adaptive_avg_pool2d_bw", "adaptive_avg_pool_jvp",
               saves={0: "0"}),
    Derivative("AdaptiveAvgPool2DBackward", "AdaptiveAvgPool2DBackwardBackward0", "adaptive_avg_pool2d_backward_bw",
               ),
    Derivative("AdaptiveMaxPool2D", "AdaptiveMaxPool2DBackward0", "max_pool2d_bw", "max_pool_jvp",
               saves={0: "0"}),
    Derivative("AdaptiveMaxPool2DBackward", "AdaptiveMaxPool2DBackwardBackward0", "max_pool2d_backward_bw",
               ),
]
