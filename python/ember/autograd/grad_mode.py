"""Grad mode switches: no_grad, enable_grad, set_grad_enabled, inference_mode.

Each is a context manager and a decorator, and acts on the current thread only.
"""
import functools

from .. import _C


class _GradModeSwitch:
    """Base: sets grad mode on entry, restores it on exit; decorating wraps each call."""

    def _enabled(self):
        raise NotImplementedError

    def __enter__(self):
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._enabled())

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self.__class__(*self._args()):
                return fn(*args, **kwargs)
        return wrapper

    def _args(self):
        return ()

    def clone(self):
        return self.__class__(*self._args())


class no_grad(_GradModeSwitch):
    """Operations inside record no graph: results do not require grad."""

    def _enabled(self):
        return False


class enable_grad(_GradModeSwitch):
    """Turns grad mode back on inside a no_grad region."""

    def _enabled(self):
        return True


class set_grad_enabled(_GradModeSwitch):
    """Sets grad mode to `mode`: at once when called, and as a context manager (restoring on exit)."""

    def __init__(self, mode):
        self._mode = bool(mode)
        self._previous = _C.is_grad_enabled()
        _C._set_grad_enabled(self._mode)

    def _enabled(self):
        return self._mode

    def _args(self):
        return (self._mode,)

    def __enter__(self):
        pass

    def __exit__(self, *exc):
        _C._set_grad_enabled(self._previous)
        return False


class inference_mode(_GradModeSwitch):
    """Like no_grad (no graph is recorded); `mode=False` leaves grad mode as it is."""

    def __init__(self, mode=True):
        self._mode = bool(mode)

    def _enabled(self):
        return _C.is_grad_enabled() if not self._mode else False

    def _args(self):
        return (self._mode,)

    def __enter__(self):
        super().__enter__()
        self._previous_inference = _C.is_inference_mode_enabled()
        _C._set_inference_mode(self._mode)

    def __exit__(self, *exc):
        _C._set_inference_mode(self._previous_inference)
        return super().__exit__(*exc)


def is_grad_enabled():
    return _C.is_grad_enabled()


def is_inference_mode_enabled():
    return _C.is_inference_mode_enabled()
