"""``gradtrack.func``: torch.func's composable function transforms.

``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` and ``hessian`` (reverse mode, on
``autograd.grad``; NOTE [Transforms on autograd.grad]), ``jvp``, ``jacfwd`` and ``linearize``
(forward mode, on ``autograd.forward_ad``), ``vmap`` (one batched call where every op has a
batching rule, NOTE [vmap batching rules]; else one call per sample, NOTE [vmap by
looping over the batch]) and ``functional_call`` / ``stack_module_state`` (a module run on given
parameters). They take and return pytrees (tuples, lists, dicts) of tensors and compose:

>>> import gradtrack
>>> from gradtrack import nn
>>> from gradtrack.func import functional_call, grad, vmap
>>> model = nn.Linear(3, 1)
>>> params = {k: v.detach() for k, v in model.named_parameters()}
>>> def loss(p, x, y):
...     return ((functional_call(model, p, (x,)) - y) ** 2).sum()
>>> x, y = gradtrack.randn(8, 3), gradtrack.randn(8, 1)
>>> per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)
>>> per_sample["weight"].shape
gradtrack.Size([8, 1, 3])
"""

from ._forward import jacfwd, jvp, linearize
from ._functional_call import functional_call, stack_module_state
from ._reverse import grad, grad_and_value, hessian, jacrev, vjp
from ._vmap import vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian",
           "functional_call", "stack_module_state", "vmap", "linearize"]
