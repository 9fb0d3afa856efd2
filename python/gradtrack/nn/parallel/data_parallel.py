"""``nn.DataParallel`` as torch's build without GPUs has it: it wraps the module and
calls it (there are no devices to split the batch over)."""

from typing import Any

from ..modules.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps ``module`` (as ``self.module``, so state-dict keys gain ``module.``) and calls
    it. With no GPU, torch's ``DataParallel`` keeps no devices (``device_ids == []``) and
    its forward is the module's; gradtrack runs on the CPU, so it is always that.

    >>> import gradtrack
    >>> from gradtrack import nn
    >>> model = nn.DataParallel(nn.Linear(2, 3))
    >>> model.device_ids, list(model.state_dict())
    ([], ['module.weight', 'module.bias'])
    >>> model(gradtrack.ones(4, 2)).shape
    gradtrack.Size([4, 3])
    """

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
