"""torch.optim.optimizer's names: the base class is the C++ one (ember._C._optim.Optimizer). A Python
subclass's own step() is wrapped so that it runs between the step hooks and counts as a step."""
import functools

from .._C._optim import Optimizer

__all__ = ["Optimizer"]


def _hook_subclass_step(cls, **kwargs):
    step = cls.__dict__.get("step")
    if step is None or getattr(step, "_ember_hooked", False):
        return

    @functools.wraps(step)
    def hooked(self, *args, **kw):
        return self._hooked_step(step.__get__(self, type(self)), *args, **kw)

    hooked._ember_hooked = True
    cls.step = hooked


Optimizer.__init_subclass__ = classmethod(_hook_subclass_step)
