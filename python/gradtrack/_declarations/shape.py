"""Ops that copy or rearrange elements: clone and copies, fills, cat/stack, triangles, flips, rolls, repeats."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("Clone", "CloneBackward0", "pass_bw", "copy_jvp"),
    Derivative("ToCopy", "ToCopyBackward0", "pass_bw", "copy_jvp"),
    Derivative("CopyInto", "gradtrack::autograd::CopyBackwards", "copy_into_bw", "copy_into_jvp"),
    Derivative("Fill", "FillBackward2", "fill_bw", "zero_jvp"),
    Derivative("FillTensor", "FillBackward3", "fill_bw", "copy_into_jvp"),
    Derivative("Zero", "ZeroBackward0", "zero_bw", "zero_jvp"),
    Derivative("Cat", "CatBackward0", "cat_bw"),
    Derivative("Stack", "StackBackward0", "stack_bw"),
    Derivative("Tril", "TrilBackward0", "tril_bw", "tril_jvp"),
    Derivative("Triu", "TriuBackward0", "triu_bw", "triu_jvp"),
    Derivative("Flip", "FlipBackward0", "flip_bw", "flip_jvp"),
    Derivative("Roll", "RollBackward0", "roll_bw", "roll_jvp"),
    Derivative("Repeat", "RepeatBackward0", "repeat_bw", "repeat_jvp"),
    Derivative("DiagEmbed", "DiagEmbedBackward0", "diagonal_backward_bw", "diag_embed_jvp"),
]
