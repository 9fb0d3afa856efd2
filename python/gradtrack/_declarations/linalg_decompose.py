"""The decompositions of torch.linalg (ops/linalg_decompose.cpp): svd (svdvals and
torch.svd record it too), qr (torch.qr too) and eigh (eigvalsh too). Each node keeps
its outputs as extras and takes absent gradients (a loss of S alone must not read
U's zero-filled gradient: 0 / 0 where singular values repeat); the forward-mode
tangents are set by the ops themselves, several outputs at once."""

from .rows import Derivative

DERIVATIVES = [
    Derivative("LinalgSvd", "LinalgSvdBackward0", "linalg_svd_bw", takes_absent_grads=True),
    Derivative("LinalgQr", "LinalgQrBackward0", "linalg_qr_bw", takes_absent_grads=True),
    Derivative("LinalgEigh", "LinalgEighBackward0", "linalg_eigh_bw", takes_absent_grads=True),
]
