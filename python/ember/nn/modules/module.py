"""What ember.nn.Module needs from Python, installed on the C++ class (ember._C._nn._modules.Module) so that
every C++ layer and every Python subclass shares it: attribute routing into the C++ registries, __call__ with
torch's hooks, state_dict's mapping form and the dtype/device moves that parse Python arguments."""
import itertools
import weakref
from collections import OrderedDict, namedtuple

from ... import _C
from ...autograd.function import Function

Module = _C._nn._modules.Module
_hook_ids = itertools.count()


def _typename(obj):
    """torch.typename: a tensor's type string, else the qualified name of what obj is."""
    if isinstance(obj, _C.Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    qualname = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None)
    if qualname is None:
        module, qualname = obj.__class__.__module__ or "", obj.__class__.__qualname__
    return qualname if module in ("", "builtins") else f"{module}.{qualname}"


def _parameter_class():
    from ..parameter import Parameter
    return Parameter


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """torch.utils.hooks.RemovableHandle: remove() takes the hook out of its module."""

    def __init__(self, module, tables):
        self.id = next(_hook_ids)
        self._module = weakref.ref(module)
        self._tables = tables

    def remove(self):
        for table in self._tables:
            table.pop(self.id, None)
        module = self._module()
        if module is not None:
            _refresh_hooks(module)

    def __enter__(self):
        return self

    def __exit__(self, *args):
        self.remove()


# ---- attributes: Parameters, Modules and buffers live in the C++ registries

def __setattr__(self, name, value):
    kind = self._slot_kind(name)
    if kind < 0:  # before Module.__init__
        if isinstance(value, (_parameter_class(), Module)):
            what = "parameters" if isinstance(value, _C.Tensor) else "module"
            raise AttributeError(f"cannot assign {what} before Module.__init__() call")
        return object.__setattr__(self, name, value)
    if isinstance(value, _parameter_class()):
        if kind not in (0, 1):
            self._unregister(name)
        self.__dict__.pop(name, None)
        self.register_parameter(name, value)
    elif kind == 1:
        if value is not None:
            raise TypeError(f"cannot assign '{_typename(value)}' as parameter '{name}' "
                            "(torch.nn.Parameter or None expected)")
        self.register_parameter(name, None)
    elif isinstance(value, Module):
        if kind not in (0, 3):
            self._unregister(name)
        self.__dict__.pop(name, None)
        self.add_module(name, value)
    elif kind == 3:
        if value is not None:
            raise TypeError(f"cannot assign '{_typename(value)}' as child module '{name}' "
                            "(torch.nn.Module or None expected)")
        self.add_module(name, None)
    elif kind == 2:
        if value is not None and not isinstance(value, _C.Tensor):
            raise TypeError(f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(torch.nn.Buffer, torch.Tensor or None expected)")
        self.register_buffer(name, value, name not in self._non_persistent_buffers_set)
    else:
        object.__setattr__(self, name, value)


def __delattr__(self, name):
    if not self._unregister(name):
        object.__delattr__(self, name)


def __dir__(self):
    keys = list(object.__dir__(self)) + list(self._parameters) + list(self._modules) + list(self._buffers)
    return sorted(k for k in set(keys) if not k[0].isdigit())


def register_module(self, name, module):
    self.add_module(name, module)


def get_submodule(self, target):
    if target == "":
        return self
    mod = self
    for item in target.split("."):
        if not hasattr(mod, item):
            raise AttributeError(mod._get_name() + " has no attribute `" + item + "`")
        mod = getattr(mod, item)
        if not isinstance(mod, Module):
            raise AttributeError("`" + item + "` is not an nn.Module")
    return mod


# ---- calling: forward, with torch's hook order when the module has hooks

Module._hooks = None  # per module once a hook is registered: {"pre", "pre_kw", "fwd", "fwd_kw", "bw", "bw_pre"}


def __call__(self, *args, **kwargs):
    if self._hooks is None:
        return self.forward(*args, **kwargs)
    return _call_with_hooks(self, args, kwargs)


def _call_with_hooks(self, args, kwargs):
    h = self._hooks
    for hook_id, hook in list(h["pre"].items()):
        if hook_id in h["pre_kw"]:
            result = hook(self, args, kwargs)
            if result is not None:
                if not (isinstance(result, tuple) and len(result) == 2):
                    raise RuntimeError("forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                                       f"but got {result}.")
                args, kwargs = result
        else:
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
    bw = _BackwardHook(self) if h["bw"] or h["bw_pre"] else None
    if bw:
        args = bw.setup_input_hook(args)
    result = self.forward(*args, **kwargs)
    for hook_id, hook in list(h["fwd"].items()):
        out = hook(self, args, kwargs, result) if hook_id in h["fwd_kw"] else hook(self, args, result)
        if out is not None:
            result = out
    if bw:
        result = bw.setup_output_hook(result)
    return result


def _hook_tables(self):
    if self._hooks is None:
        self.__dict__["_hooks"] = {"pre": OrderedDict(), "pre_kw": {}, "fwd": OrderedDict(), "fwd_kw": {},
                                   "bw": OrderedDict(), "bw_pre": OrderedDict()}
        self._set_py_call(True)  # C++ containers calling this module come back through __call__
    return self._hooks


def _refresh_hooks(self):
    h = self._hooks
    if h is not None and not any(h[k] for k in ("pre", "fwd", "bw", "bw_pre")):
        self.__dict__["_hooks"] = None
        self._set_py_call(False)


def _add_hook(self, table, hook, prepend, kw_table=None, with_kwargs=False):
    h = _hook_tables(self)
    handle = RemovableHandle(self, [h[table]] + ([h[kw_table]] if kw_table else []))
    h[table][handle.id] = hook
    if prepend:
        h[table].move_to_end(handle.id, last=False)
    if with_kwargs:
        h[kw_table][handle.id] = True
    return handle


def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
    return _add_hook(self, "pre", hook, prepend, "pre_kw", with_kwargs)


def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
    return _add_hook(self, "fwd", hook, prepend, "fwd_kw", with_kwargs)


def register_full_backward_hook(self, hook, prepend=False):
    return _add_hook(self, "bw", hook, prepend)


def register_full_backward_pre_hook(self, hook, prepend=False):
    return _add_hook(self, "bw_pre", hook, prepend)


class BackwardHookFunction(Function):
    """Identity on the module's tensors; its backward is where the module's backward hooks run."""

    @staticmethod
    def forward(ctx, on_backward, *args):
        ctx.on_backward = on_backward
        return tuple(a.view_as(a) for a in args)

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.on_backward(grads))


class _BackwardHook:
    """torch.utils.hooks.BackwardHook: grad_output is caught where the outputs enter the graph, the hooks run
    with grad_input where the inputs leave it (or at once when no input needs a gradient)."""

    def __init__(self, module):
        self.module = module
        self.grad_outputs = None
        self.n_inputs = 0
        self.input_positions = None

    def _wrap(self, values, on_backward):
        positions = [i for i, v in enumerate(values) if isinstance(v, _C.Tensor)]
        if not any(values[i].requires_grad for i in positions):
            return values, None
        wrapped = BackwardHookFunction.apply(on_backward, *[values[i] for i in positions])
        out = list(values)
        for i, w in zip(positions, wrapped):
            out[i] = w
        return tuple(out), positions

    def _pack(self, positions, grads, n):
        out = [None] * n
        for i, g in zip(positions, grads):
            out[i] = g
        return tuple(out)

    def setup_input_hook(self, args):
        self.n_inputs = len(args)

        def on_backward(grads):
            grad_inputs = self._pack(self.input_positions, grads, self.n_inputs)
            for hook in list(self.module._hooks["bw"].values()):
                result = hook(self.module, grad_inputs, self.grad_outputs)
                if result is not None:
                    if len(result) != len(grad_inputs):
                        raise RuntimeError(f"Backward hook returned an invalid number of grad_input, got "
                                           f"{len(result)}, but expected {len(grad_inputs)}")
                    grad_inputs = tuple(result)
            return tuple(grad_inputs[i] for i in self.input_positions)

        args, self.input_positions = self._wrap(args, on_backward)
        return args

    def setup_output_hook(self, result):
        single = not isinstance(result, tuple)
        outputs = (result,) if single else result
        n = len(outputs)

        def on_backward(grads):
            grad_outputs = self._pack(positions, grads, n)
            for hook in list(self.module._hooks["bw_pre"].values()):
                new = hook(self.module, grad_outputs)
                if new is not None:
                    grad_outputs = tuple(new)
            self.grad_outputs = grad_outputs
            if self.input_positions is None:  # no input needs a gradient: the hooks run here
                grad_inputs = (None,) * self.n_inputs
                for hook in list(self.module._hooks["bw"].values()):
                    res = hook(self.module, grad_inputs, grad_outputs)
                    if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                        raise RuntimeError("Backward hook for Modules where no input requires gradient should "
                                           "always return None or None for all gradients.")
            return tuple(grad_outputs[i] for i in positions)

        outputs, positions = self._wrap(outputs, on_backward)
        return outputs[0] if single else outputs


# ---- state

def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
    if destination is None:
        destination = OrderedDict()
        destination._metadata = OrderedDict()
    for name, module in [("", self)] + list(self.named_modules(prefix="", remove_duplicate=False))[1:]:
        if hasattr(destination, "_metadata"):
            destination._metadata[(prefix + name) if name else prefix[:-1]] = {"version": 1}
    for key, value in self._state_dict(prefix, keep_vars):
        destination[key] = value
    return destination


def load_state_dict(self, state_dict, strict=True, assign=False):
    from collections.abc import Mapping
    if not isinstance(state_dict, Mapping):
        raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
    missing, unexpected = self._load_state_dict(list(state_dict.items()), strict)
    return _IncompatibleKeys(missing, unexpected)


def train(self, mode=True):
    # in Python, so that a subclass's train() override is called for its children too (as torch does)
    if not isinstance(mode, bool):
        raise ValueError("training mode is expected to be boolean")
    self.training = mode
    for module in self.children():
        module.train(mode)
    return self


def eval(self):
    return self.train(False)


def apply(self, fn):
    for module in self.children():
        module.apply(fn)
    fn(self)
    return self


def to(self, *args, **kwargs):
    dtype, device = kwargs.get("dtype"), kwargs.get("device")
    for a in args:
        if isinstance(a, _C.Tensor):
            dtype, device = a.dtype, a.device
        elif isinstance(a, _C.dtype):
            dtype = a
        elif a is not None:
            device = a
    if dtype is not None:
        if not dtype.is_floating_point:
            raise TypeError(f"nn.Module.to only accepts floating point or complex dtypes, but got desired "
                            f"dtype={dtype}")
        self._to_dtype(dtype)
    if device is not None:
        self._to_device(device)
    return self


def _to_dtype_method(dtype):
    def method(self):
        self._to_dtype(dtype)
        return self
    return method


def cpu(self):
    self._to_device("cpu")
    return self


def cuda(self, device=None):
    self._to_device("cuda" if device is None else device)
    return self


# ---- pickling and deepcopy: a C++ class is rebuilt from its constructor arguments (with the generator's state
# put back: unpickling draws no random numbers), then given the saved registries and attributes; a Python
# subclass's __init__ is not run, as in torch.

def _init_args(module):
    m = _C._nn._modules
    args = {m.Linear: lambda: (module.in_features, module.out_features),
            m.Bilinear: lambda: (module.in1_features, module.in2_features, module.out_features),
            m.Flatten: lambda: (module.start_dim, module.end_dim),
            m.Unflatten: lambda: (module.dim, tuple(module.unflattened_size))}
    base = _cpp_class(type(module))
    return base, args.get(base, tuple)()


def _cpp_class(cls):
    return next(c for c in cls.__mro__ if c.__module__ == "ember.nn" and issubclass(c, Module))


def __reduce_ex__(self, protocol):
    base, args = _init_args(self)
    nonpersistent = self._non_persistent_buffers_set
    state = {"parameters": list(self._parameters.items()),
             "buffers": [(k, v, k not in nonpersistent) for k, v in self._buffers.items()],
             "modules": list(self._modules.items()), "training": self.training,
             "dict": {k: v for k, v in self.__dict__.items() if k != "_hooks"}}
    return _rebuild_module, (type(self), base, args, state)


def _rebuild_module(cls, base, args, state):
    module = cls.__new__(cls)
    rng = _C.get_rng_state()
    base.__init__(module, *args)
    _C.set_rng_state(rng)
    for name, p in state["parameters"]:
        module.register_parameter(name, p)
    for name, b, persistent in state["buffers"]:
        module.register_buffer(name, b, persistent)
    for name, child in state["modules"]:
        module.add_module(name, child)
    module.__dict__.update(state["dict"])
    module.training = state["training"]
    return module


for _name, _fn in list(globals().items()):
    if _name in ("__setattr__", "__delattr__", "__dir__", "__call__", "register_module", "get_submodule",
                 "register_forward_pre_hook", "register_forward_hook", "register_full_backward_hook",
                 "register_full_backward_pre_hook", "state_dict", "load_state_dict", "train", "eval", "apply", "to",
                 "cpu", "cuda", "__reduce_ex__"):
        setattr(Module, _name, _fn)
for _name, _dtype in (("float", _C.float32), ("double", _C.float64), ("half", _C.float16),
                      ("bfloat16", _C.bfloat16)):
    setattr(Module, _name, _to_dtype_method(_dtype))
Module.__module__ = "ember.nn"
Module.dump_patches = False
