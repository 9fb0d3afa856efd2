"""``torch.backends``: the backend switches device-portable scripts read and set.

Each submodule answers as torch's CPU build does: no CUDA, cuDNN or MPS; OpenMP
and oneDNN (``mkldnn``) reported as built. The flags are read and set as in torch;
gradtrack's CPU kernels compute in float32 whatever they say (TF32 is a GPU format).

>>> import gradtrack
>>> gradtrack.backends.cuda.matmul.allow_tf32 = True
>>> gradtrack.backends.cudnn.is_available()
False
>>> gradtrack.backends.cuda.matmul.allow_tf32 = False
"""

from . import cpu, cuda, cudnn, mkl, mkldnn, mps, openmp, opt_einsum  # noqa: F401
