"""The random fills: their nodes give zero gradients (the result does not depend on self's old values)."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Normal", "NormalBackward0", "zero_bw", "zero_jvp"),
    Derivative("Uniform", "UniformBackward0", "zero_bw", "zero_jvp"),
    Derivative("Bernoulli", "BernoulliBackward2", "zero_bw", "zero_jvp"),
    Derivative("BernoulliTensor", "BernoulliBackward1", "zero_bw", "zero_jvp"),
    Derivative("BernoulliFunctional", "BernoulliBackward0", "zero_bw", "zero_jvp"),
    Derivative("Exponential", "ExponentialBackward0", "zero_bw", "zero_jvp"),
    Derivative("Geometric", "GeometricBackward0", "zero_bw", "zero_jvp"),
    Derivative("Cauchy", "CauchyBackward0", "zero_bw", "zero_jvp"),
    Derivative("LogNormal", "LogNormalBackward0", "zero_bw", "zero_jvp"),
    Derivative("RandomFromTo", "RandomBackward0", "zero_bw", "zero_jvp"),
    Derivative("RandomTo", "RandomBackward1", "zero_bw", "zero_jvp"),
    Derivative("Random", "RandomBackward2", "zero_bw", "zero_jvp"),
]
