"""``torch.amp.GradScaler``: loss scaling for reduced-precision training, with torch's
inf/NaN checks, skipped steps and scale updates.

The scale and the growth tracker are 0-d tensors (float32 and int32) made at the first
``scale()``, as torch. A ``"cuda"`` scaler on a CPU-only machine disables itself with
torch's warning; a disabled scaler passes everything through.

>>> import gradtrack
>>> scaler = gradtrack.amp.GradScaler("cpu", init_scale=4.0)
>>> scaler.scale(gradtrack.tensor(1.5))
tensor(6.)
"""

import builtins
import warnings
from collections import defaultdict
from enum import Enum

from .. import _C


class OptState(Enum):
    """Where an optimizer is in the scaler's iteration."""

    READY = 0
    UNSCALED = 1
    STEPPED = 2


def _refresh_per_optimizer_state():
    return {"stage": OptState.READY, "found_inf_per_device": {}}


class GradScaler:
    """Scales a loss up before backward and the gradients down before the step, skipping
    steps whose gradients hold inf or NaN, as ``torch.amp.GradScaler``.

    >>> import gradtrack
    >>> w = gradtrack.nn.Parameter(gradtrack.ones(2))
    >>> opt = gradtrack.optim.SGD([w], lr=0.1)
    >>> scaler = gradtrack.amp.GradScaler("cpu", init_scale=8.0)
    >>> scaler.scale((w * 3).sum()).backward()
    >>> scaler.step(opt)
    >>> scaler.update()
    >>> w
    Parameter containing:
    tensor([0.7000, 0.7000], requires_grad=True)
    """

    def __init__(self, device: str = "cuda", init_scale: float = 2.0 ** 16,
                 growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        self._device = device
        self._enabled = enabled
        if device == "cuda" and enabled:
            warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  "
                          "Disabling.", stacklevel=2)
            self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise AssertionError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise AssertionError("The backoff factor must be < 1.0.")
            self._init_scale = init_scale
            self._scale = None
            self._growth_factor = growth_factor
            self._backoff_factor = backoff_factor
            self._growth_interval = growth_interval
            self._init_growth_tracker = 0
            self._growth_tracker = None
            self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def _check_scale_growth_tracker(self, funcname):
        fix = ("This may indicate your script did not use scaler.scale(loss or outputs) earlier "
               "in the iteration.")
        if self._scale is None:
            raise AssertionError(f"Attempted {funcname} but _scale is None.  " + fix)
        if self._growth_tracker is None:
            raise AssertionError(f"Attempted {funcname} but _growth_tracker is None.  " + fix)
        return self._scale, self._growth_tracker

    def scale(self, outputs):
        """``outputs`` (a tensor or an iterable of them) times the current scale."""
        if not self._enabled:
            return outputs
        if self._scale is None:
            self._scale = _C.full((), float(self._init_scale), dtype=_C.float32)
            self._growth_tracker = _C.full((), self._init_growth_tracker, dtype=_C.int32)
        if isinstance(outputs, _C.Tensor):
            return outputs * self._scale

        def apply_scale(value):
            if isinstance(value, _C.Tensor):
                return value * self._scale
            if isinstance(value, (list, tuple)):
                scaled = [apply_scale(v) for v in value]
                return type(value)(scaled) if isinstance(value, tuple) else scaled
            if hasattr(value, "__iter__"):
                return map(apply_scale, value)
            raise ValueError("outputs must be a Tensor or an iterable of Tensors")

        return apply_scale(outputs)

    def _unscale_grads_(self, optimizer, inv_scale, found_inf, allow_fp16):
        """Unscales the gradients in place; returns ``found_inf`` under the device of the
        gradients (torch's ``{device: flag}``; empty when there was no gradient)."""
        from .. import no_grad
        per_device = {}
        with no_grad():
            for group in optimizer.param_groups:
                for param in group["params"]:
                    grad = param.grad
                    if grad is None:
                        continue
                    per_device.setdefault(grad.device, found_inf)
                    if not allow_fp16 and grad.dtype == _C.float16:
                        raise ValueError("Attempting to unscale FP16 gradients.")
                    if not builtins.bool(grad.isfinite().all()):
                        found_inf.fill_(1.0)
                    grad.mul_(inv_scale.to(grad.dtype))
        return per_device

    def _found_inf_per_device(self, optimizer):
        """The inf/NaN flags ``unscale_`` recorded for ``optimizer`` since the last
        ``update()``, by device (``{}`` before it ran)."""
        return self._per_optimizer_states[id(optimizer)]["found_inf_per_device"]

    def unscale_(self, optimizer) -> None:
        """Divides ``optimizer``'s gradients by the scale in place and records inf/NaN."""
        if not self._enabled:
            return
        self._check_scale_growth_tracker("unscale_")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since the "
                               "last update().")
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv_scale = self._scale.double().reciprocal().float()
        found_inf = _C.full((), 0.0, dtype=_C.float32)
        state["found_inf_per_device"] = self._unscale_grads_(optimizer, inv_scale, found_inf,
                                                             False)
        state["stage"] = OptState.UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """Unscales (if not done) and runs ``optimizer.step()`` unless inf/NaN was found."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        self._check_scale_growth_tracker("step")
        state = self._per_optimizer_states[id(optimizer)]
        if state["stage"] is OptState.STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] is OptState.READY:
            self.unscale_(optimizer)
        if len(state["found_inf_per_device"]) == 0:
            raise AssertionError("No inf checks were recorded for this optimizer.")
        retval = None
        if not sum(v.item() for v in state["found_inf_per_device"].values()):
            retval = optimizer.step(*args, **kwargs)
        state["stage"] = OptState.STEPPED
        return retval

    def update(self, new_scale=None) -> None:
        """Backs the scale off after a skipped step, grows it after ``growth_interval``
        clean ones (or sets ``new_scale``); starts the next iteration."""
        if not self._enabled:
            return
        scale, tracker = self._check_scale_growth_tracker("update")
        if new_scale is not None:
            if isinstance(new_scale, float):
                scale.fill_(new_scale)
            else:
                reason = ("new_scale should be a float or a 1-element torch.cuda.FloatTensor or "
                          "torch.FloatTensor with requires_grad=False.")
                if (not isinstance(new_scale, _C.Tensor) or new_scale.numel() != 1
                        or new_scale.requires_grad):
                    raise AssertionError(reason)
                scale.copy_(new_scale)
        else:
            found = [inf for state in self._per_optimizer_states.values()
                     for inf in state["found_inf_per_device"].values()]
            if len(found) == 0:
                raise AssertionError("No inf checks were recorded prior to update.")
            if builtins.sum(inf.item() for inf in found):
                scale.mul_(self._backoff_factor)
                tracker.fill_(0)
            else:
                successful = tracker.item() + 1
                if successful == self._growth_interval:
                    # The grown scale stays finite, as torch's _amp_update_scale_ keeps it.
                    grown = scale * self._growth_factor
                    if builtins.bool(grown.isfinite()):
                        scale.copy_(grown)
                    tracker.fill_(0)
                else:
                    tracker.fill_(successful)
        self._per_optimizer_states = defaultdict(_refresh_per_optimizer_state)

    def get_scale(self) -> float:
        """The current scale as a Python float (1.0 when disabled)."""
        if not self._enabled:
            return 1.0
        return self._init_scale if self._scale is None else self._scale.item()

    def get_growth_factor(self) -> float:
        """The factor the scale grows by."""
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        """Sets the factor the scale grows by."""
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        """The factor the scale backs off by."""
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        """Sets the factor the scale backs off by."""
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        """How many clean steps grow the scale."""
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        """Sets how many clean steps grow the scale."""
        self._growth_interval = new_interval

    def _get_growth_tracker(self):
        if not self._enabled:
            return 0
        return self._init_growth_tracker if self._growth_tracker is None \
            else self._growth_tracker.item()

    def is_enabled(self) -> bool:
        """Whether this scaler scales (False after a "cuda" scaler disabled itself)."""
        return self._enabled

    def state_dict(self) -> dict:
        """The scale, factors, interval and growth tracker ({} when disabled)."""
        if not self._enabled:
            return {}
        return {"scale": self.get_scale(), "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor, "growth_interval": self._growth_interval,
                "_growth_tracker": self._get_growth_tracker()}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restores :meth:`state_dict`'s values (a no-op when disabled)."""
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._init_scale = state_dict["scale"]
        if self._scale is not None:
            self._scale.fill_(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._init_growth_tracker = state_dict["_growth_tracker"]
        if self._growth_tracker is not None:
            self._growth_tracker.fill_(state_dict["_growth_tracker"])
