"""Drop-in modules: ``origami_nv.nn.Linear`` and ``origami_nv.nn.convert(model)``.

    model = origami_nv.nn.convert(model)     # every nn.Linear now runs through origami_nv on CUDA fp16/bf16

``Linear`` is an ``nn.Linear`` subclass with nothing added to its state: the same parameters, the same
state_dict keys, loadable from and into an ``nn.Linear`` checkpoint. Its forward runs
``origami_nv.matmul(x, weight.t(), bias=bias)`` (the bias fused in the epilogue) for the inputs the op
computes, and ``F.linear`` otherwise, with the same checks and counters as the switch
(``origami_nv.dispatch_stats()``, under the name "nn.Linear").

``convert`` changes the class of each ``nn.Linear`` in place (``module.__class__``), so no module is
replaced and no tensor is copied: parameters, their device, dtype, requires_grad and identity, hooks,
and any reference held elsewhere (optimizers, tied weights) stay valid. ``revert`` undoes it.
"""
from __future__ import annotations

from typing import Iterable

import torch
import torch.nn.functional as F

from . import _dispatch

__all__ = ["Linear", "convert", "revert"]


class Linear(torch.nn.Linear):
    """nn.Linear whose forward runs on origami_nv's kernels where the op computes the call (fp16/bf16,
    a routed device type, input of 2 or more dims; see origami_nv._dispatch) and F.linear otherwise.

    Same constructor and state as nn.Linear. ``route_devices`` (default ("cuda",)) is a plain attribute,
    not part of the state_dict; set it per module or through convert(model, devices=...)."""

    route_devices: frozenset = frozenset({"cuda"})

    def forward(self, input: torch.Tensor) -> torch.Tensor:
        out, done = _dispatch.route_call("nn.Linear", _linear_route, self.route_devices,
                                         (input, self.weight, self.bias), None)
        if done:
            return out
        return F.linear(input, self.weight, self.bias)

    @classmethod
    def from_linear(cls, module: torch.nn.Linear, devices: Iterable[str] = ("cuda",)) -> "Linear":
        """Turn this nn.Linear into an origami_nv Linear in place (no copy) and return it."""
        if type(module) not in (torch.nn.Linear, cls):
            raise TypeError(f"origami_nv.nn.Linear.from_linear: expected a torch.nn.Linear, got "
                            f"{type(module).__name__} (subclasses may have their own forward; they are not "
                            f"converted)")
        module.__class__ = cls
        devs = _dispatch._device_set(devices)
        if devs != cls.route_devices:
            module.route_devices = devs
        elif "route_devices" in module.__dict__:
            del module.route_devices
        return module


def _linear_route(devices, args, kwargs):
    return _dispatch.linear_route(devices, *args)


def convert(model: torch.nn.Module, devices: Iterable[str] = ("cuda",)) -> torch.nn.Module:
    """Make every nn.Linear in `model` (recursively, `model` itself included) an origami_nv.nn.Linear,
    in place, and return `model`. Only modules whose type is exactly torch.nn.Linear are converted:
    subclasses may define their own forward (e.g. quantised or LoRA layers) and are left as they are.
    No parameter is copied or moved. devices: the device types routed (default ("cuda",))."""
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"origami_nv.nn.convert: expected a torch.nn.Module, got {type(model).__name__}")
    devs = _dispatch._device_set(devices)
    for module in model.modules():
        if type(module) is torch.nn.Linear or type(module) is Linear:
            Linear.from_linear(module, devs)
    return model


def revert(model: torch.nn.Module) -> torch.nn.Module:
    """Undo convert(): every origami_nv.nn.Linear in `model` becomes a torch.nn.Linear again, in place."""
    for module in model.modules():
        if type(module) is Linear:
            module.__class__ = torch.nn.Linear
            module.__dict__.pop("route_devices", None)
    return model
