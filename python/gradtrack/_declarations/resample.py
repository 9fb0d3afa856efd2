"""Padding and interpolation: one separable map (``kernels/resample.cpp``) whose
backward is the same map transposed, and that backward's own node for double
backward. The padding modes save their input; the interpolations do not."""

from .rows import Derivative

_PADS = ["ReflectionPad1D", "ReflectionPad2D", "ReflectionPad3D", "ReplicationPad1D",
         "ReplicationPad2D", "ReplicationPad3D"]
_UPSAMPLES = ["UpsampleNearest1D", "UpsampleNearest2D", "UpsampleNearest3D",
              "UpsampleNearestExact1D", "UpsampleNearestExact2D", "UpsampleNearestExact3D",
              "UpsampleLinear1D", "UpsampleBilinear2D", "UpsampleBicubic2D", "UpsampleTrilinear3D"]

DERIVATIVES = [
    Derivative("ConstantPadNd", "ConstantPadNdBackward0", "constant_pad_bw", "constant_pad_jvp"),
    *(Derivative(kind, kind + "Backward0", "resample_bw", "resample_jvp",
                 saves={0: "0"} if kind in _PADS else {}) for kind in _PADS + _UPSAMPLES),
    # their backward ops, in the same order (ops/resample.cpp maps one to the other)
    *(Derivative(kind + "Backward", kind + "BackwardBackward0", "resample_backward_bw",
                 "resample_backward_jvp") for kind in _PADS + _UPSAMPLES),
]
