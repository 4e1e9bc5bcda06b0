"""Random program generator for the differential tester.

A program is a list of statements {"src", "out", "op"} written against a module named `m`, so that the same
text runs with m=ember and m=torch. The generator runs each statement in torch as it goes, to know the shapes
and dtypes of the variables (and whether a statement raised: a raising statement ends the program).

OPS (at the end) is the one list of op families; add a family there when a new area lands. A family is used
only when every name it needs exists in ember (AVAILABLE).
"""
import math
import os
import random
import re

import torch

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOATS = ["float16", "bfloat16", "float32", "float64"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]
MAX_STATEMENTS = 7
INVALID_SHARE = 0.2


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.ns = {"m": torch, "math": math}
        self.statements = []
        self.names = []  # tensor variables, in order
        self.bad = False  # the statement being generated should be invalid
        self.specials = self.r.random() < 0.1  # nan/inf/-0.0 among float values
        self.leaves = []  # tensors that require grad, for autograd programs

    # ---- variables ----
    def t(self, name):
        return self.ns[name]

    def pick(self, pred=lambda t: True):
        cands = [n for n in self.names if isinstance(self.ns.get(n), torch.Tensor) and pred(self.ns[n])]
        return self.r.choice(cands) if cands else None

    def existing(self, pred=lambda t: True):
        """A tensor variable satisfying pred and its value, or (None, None)."""
        name = self.pick(pred)
        return (name, self.ns[name]) if name else (None, None)

    def add(self, src, out, op):
        """Runs the statement in torch; records it; False when it raised (the program ends there)."""
        self.statements.append({"src": src, "out": out, "op": op})
        try:
            exec(src, self.ns)  # noqa: S102
        except Exception:  # noqa: BLE001 - an invalid statement ends the program
            return False
        if out and isinstance(self.ns.get(out), torch.Tensor) and out not in self.names:
            self.names.append(out)
        return True

    def writable(self, name, strict=False):
        """Can name be written in place with a defined result? Writes through overlapping elements depend on
        the kernel's order, unless torch rejects them (stride-0 overlap; not for index writes: strict)."""
        t = self.ns[name]
        return not _overlaps(t) or (not strict and torch._debug_has_internal_overlap(t) == 1)

    def new_name(self):
        return f"v{len(self.statements)}"

    # ---- random pieces ----
    def chance(self, p):
        return self.r.random() < p

    def dtype(self, choices=DTYPES):
        return self.r.choice(choices)

    def shape(self, max_ndim=4, max_numel=96):
        nd = self.r.choices([0, 1, 2, 3, 4], [10, 30, 35, 20, 5])[0]
        nd = min(nd, max_ndim)
        while True:
            s = tuple(0 if self.chance(0.06) else self.r.randint(1, 5) for _ in range(nd))
            if math.prod(s) <= max_numel:
                return s

    def value(self, dt):
        r = self.r
        if dt == "bool":
            return r.choice(["True", "False"])
        if dt in INTS:
            info = torch.iinfo(getattr(torch, dt))
            if r.random() < 0.04:
                return str(r.choice([info.min, info.max]))
            return str(r.randint(max(info.min, -6), 12 if dt == "uint8" else 6))
        if self.specials and r.random() < 0.08:
            return r.choice(["math.nan", "math.inf", "-math.inf", "-0.0"])
        return repr(r.choice([r.randint(-4, 4), r.randint(-16, 16) / 4, round(r.uniform(-3, 3), 2)]))

    def scalar(self, kind=None):
        kind = kind or self.r.choice(["int", "float", "bool", "float"])
        if kind == "int":
            return str(self.r.randint(-3, 5))
        if kind == "bool":
            return self.r.choice(["True", "False"])
        return self.value("float32")

    def literal(self, shape, dt):
        if not shape:
            return self.value(dt)
        return "[" + ", ".join(self.literal(shape[1:], dt) for _ in range(shape[0])) + "]"

    def creation(self, shape, dt, layout=None, grad=False):
        """A creation expression of the given shape and dtype with a random memory layout."""
        r = self.r
        layout = layout or r.choice(["contig", "contig", "t", "perm", "expand", "slice", "strided"])
        nd = len(shape)
        tail = f", dtype=m.{dt}" + (", requires_grad=True" if grad else "")
        if layout == "t" and nd >= 2:
            i, j = r.sample(range(nd), 2)
            b = list(shape)
            b[i], b[j] = b[j], b[i]
            return f"m.tensor({self.literal(b, dt)}{tail}).transpose({i}, {j})"
        if layout == "perm" and nd >= 2:
            q = list(range(nd))
            r.shuffle(q)
            b = [0] * nd
            for k in range(nd):
                b[q[k]] = shape[k]
            return f"m.tensor({self.literal(b, dt)}{tail}).permute({', '.join(map(str, q))})"
        if layout == "expand" and nd >= 1:
            lead = r.randint(0, nd - 1) if nd > 1 else 0
            b = [1 if (s != 0 and r.random() < 0.5) else s for s in shape[lead:]]
            return f"m.tensor({self.literal(b, dt)}{tail}).expand({', '.join(map(str, shape))})"
        if layout == "slice" and nd >= 1:
            parts, b = [], []
            for s in shape:
                start, step = r.randint(0, 1), r.randint(1, 2)
                b.append(start + step * s + r.randint(0, 1))
                parts.append(f"{start}:{start + step * s}:{step}")
            return f"m.tensor({self.literal(b, dt)}{tail})[{', '.join(parts)}]"
        if layout == "strided" and nd >= 1:
            strides = [r.choice([0, 1, 2, 3, 5]) for _ in shape]
            off = r.randint(0, 2)
            need = off + 1 + sum((s - 1) * st for s, st in zip(shape, strides) if s > 0)
            return (f"m.tensor({self.literal([need], dt)}{tail}).as_strided(({', '.join(map(str, shape))},), "
                    f"({', '.join(map(str, strides))},), {off})")
        return f"m.tensor({self.literal(shape, dt)}{tail})"

    def operand(self, pred=lambda t: True, shape=None, dtype=None, p_existing=0.6):
        """An existing tensor variable (satisfying pred) or a new creation expression."""
        if self.chance(p_existing):
            name = self.pick(pred)
            if name:
                return name
        return self.creation(self.shape() if shape is None else shape, dtype or self.dtype())

    def dim(self, t, allow_none=False):
        nd = max(t.dim(), 1)
        if self.bad:
            return str(self.r.choice([nd, -nd - 1, nd + 2]))
        if allow_none and self.chance(0.25):
            return "None"
        return str(self.r.randint(-nd, nd - 1))

    def dims(self, t):
        """None, an int, or a tuple of distinct dims."""
        nd = t.dim()
        if self.bad or nd == 0 or self.chance(0.4):
            return self.dim(t, allow_none=True)
        k = self.r.randint(1, nd)
        return "(" + ", ".join(str(d - nd if self.chance(0.3) else d) for d in self.r.sample(range(nd), k)) + ",)"

    def broadcast_shape(self, shape):
        """A shape that broadcasts with `shape` (or, when bad, one that does not)."""
        r = self.r
        s = list(shape[r.randint(0, len(shape)):]) if shape else []
        s = [1 if r.random() < 0.3 else d for d in s]
        if r.random() < 0.15 and len(shape) < 4:
            s = [r.randint(1, 3)] + ([1] * (len(shape) - len(s))) + s if len(s) < len(shape) else [1] + s
        if self.bad:
            if not s:
                s = [1]
            i = r.randrange(len(s))
            s[i] = shape[len(shape) - len(s) + i] + 1 if len(shape) >= len(s) - i and i >= len(s) - len(shape) and \
                shape[len(shape) - len(s) + i] > 1 else 7
        return tuple(s)

    def index_tensor(self, size, shape=None):
        shape = shape or (self.r.randint(0, 4),)
        n = math.prod(shape)
        hi = size + (3 if self.bad else 0)
        vals = [self.r.randint(-hi, hi - 1) if hi > 0 else (3 if self.bad else 0) for _ in range(n)]
        if size == 0 and not self.bad:
            return f"m.zeros({shape}, dtype=m.int64)"
        it = iter(vals)

        def nest(s):
            return str(next(it)) if not s else "[" + ", ".join(nest(s[1:]) for _ in range(s[0])) + "]"
        return f"m.tensor({nest(shape)}, dtype=m.{self.r.choice(['int64', 'int64', 'int32'])})"


def _out_tensor(g, t=None):
    """An out= tensor: empty (resized) or one of a random dtype."""
    dt = g.dtype() if g.chance(0.3) or t is None else str(t.dtype).replace("torch.", "")
    return f"m.zeros({'0' if g.chance(0.5) or t is None else tuple(t.shape)}, dtype=m.{dt})"


def _maybe_out(g, call, t=None):
    """A module-function call `m.op(...)`, now and then given an out= tensor (out= dtype rules differ per op)."""
    if not g.chance(0.2) or not call.endswith(")"):
        return call
    return f"{call[:-1]}, out={_out_tensor(g, t)})"


def _value_of(g, expr):
    """The value of an operand expression that reads variables (None for others: they are fresh tensors)."""
    return eval(expr, dict(g.ns)) if re.search(r"\bv\d+\b", expr) else None  # noqa: S307 - our own expression


def _overlaps(t):
    """Do two elements of t share memory?"""
    offsets = {0}
    for size, stride in zip(t.shape, t.stride()):
        offsets = {o + i * stride for o in offsets for i in range(size)}
    return len(offsets) < t.numel()


def _elements(t):
    """The storage offsets (in bytes) t's elements occupy."""
    offsets = {t.storage_offset()}
    for size, stride in zip(t.shape, t.stride()):
        offsets = {o + i * stride for o in offsets for i in range(size)}
    return {o * t.element_size() for o in offsets}


def _order_dependent(target, other):
    """Would writing `target` in place with `other` give a result that depends on the kernel's element order? So when
    other is another view of target's memory that neither equals it nor is rejected by torch (both dense)."""
    if not isinstance(other, torch.Tensor) or target.untyped_storage().data_ptr() != other.untyped_storage().data_ptr():
        return False
    if (target.shape, target.stride(), target.storage_offset()) == (other.shape, other.stride(), other.storage_offset()):
        return False
    if not _elements(target) & _elements(other):
        return False
    return not (_dense(target) and _dense(other))


def _dense(t):
    """Non-overlapping and dense: some permutation of t is contiguous."""
    expected = 1
    for stride, size in sorted((st, sz) for sz, st in zip(t.shape, t.stride()) if sz != 1):
        if stride != expected:
            return False
        expected *= size
    return True


# ---------------- op families ----------------

UNARY = ["abs", "acos", "asin", "atan", "ceil", "cos", "cosh", "erf", "erfc", "exp", "exp2", "expm1", "floor",
         "frac", "log", "log10", "log1p", "log2", "neg", "reciprocal", "relu", "round", "rsqrt", "sigmoid", "sign",
         "sin", "sinh", "sqrt", "square", "tan", "tanh", "trunc", "bitwise_not", "logical_not", "isnan", "isinf",
         "isfinite", "nan_to_num", "asinh", "acosh", "atanh", "sgn", "sinc", "deg2rad", "rad2deg", "lgamma",
         "digamma", "erfinv", "i0", "arccos", "arcsinh", "absolute", "negative", "fix", "isneginf", "isposinf",
         "signbit"]
BINARY = ["add", "sub", "mul", "div", "true_divide", "floor_divide", "remainder", "fmod", "pow", "atan2",
          "maximum", "minimum", "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or",
          "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift",
          "logaddexp", "logaddexp2", "gcd", "lcm", "heaviside", "ldexp", "float_power", "subtract", "not_equal",
          "greater", "less_equal", "hypot", "copysign", "xlogy"]
OPERATORS = {"add": "+", "sub": "-", "mul": "*", "div": "/", "floor_divide": "//", "remainder": "%", "pow": "**",
             "eq": "==", "ne": "!=", "lt": "<", "le": "<=", "gt": ">", "ge": ">=", "bitwise_and": "&",
             "bitwise_or": "|", "bitwise_xor": "^", "bitwise_left_shift": "<<", "bitwise_right_shift": ">>"}
REDUCE = ["sum", "mean", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "all", "any", "std", "var",
          "std_mean", "var_mean", "norm", "logsumexp", "count_nonzero"]
CREATE = ["zeros", "ones", "full", "arange", "linspace", "eye", "rand", "randn", "randint", "zeros_like",
          "ones_like", "full_like", "rand_like", "randn_like", "new_zeros", "new_ones", "new_full"]


def gen_creation(g):
    r = g.r
    op = r.choice([o for o in CREATE if o in AVAILABLE])
    shape = g.shape()
    if g.bad:
        shape = shape + (r.choice([-1, -3]),)
    dt = g.dtype()
    sh = ", ".join(map(str, shape))
    kw = f"dtype=m.{dt}" if r.random() < 0.8 else ""
    if op in ("zeros", "ones"):
        return op, f"m.{op}({sh}{', ' if kw and sh else ''}{kw})"
    if op == "full":
        return op, f"m.full(({sh}{',' if len(shape) == 1 else ''}), {g.scalar()}{', ' + kw if kw else ''})"
    if op == "arange":
        a, b = r.randint(-5, 5), r.randint(-5, 12)
        step = r.choice(["1", "2", "-1", "0.5", "1.5", "-0.75", "3"]) if not g.bad else "0"
        args = r.choice([f"{b}", f"{a}, {b}", f"{a}, {b}, {step}", f"{a / 2}, {b}, {step}"])
        return op, f"m.arange({args}{', ' + kw if kw else ''})"
    if op == "linspace":
        steps = r.randint(-1 if g.bad else 0, 6)
        return op, f"m.linspace({g.scalar('float')}, {g.scalar('int')}, {steps}{', ' + kw if kw else ''})"
    if op == "eye":
        n = r.randint(-1 if g.bad else 0, 4)
        return op, f"m.eye({n}{', ' + str(r.randint(0, 4)) if r.random() < 0.5 else ''}{', ' + kw if kw else ''})"
    seed = f"m.manual_seed({r.randint(0, 99)}); "
    if op in ("rand", "randn"):
        return op, f"{seed}{{out}} = m.{op}({sh}, dtype=m.{g.dtype(FLOATS) if not g.bad else 'int64'})"
    if op == "randint":
        lo = r.randint(-5, 3)
        hi = lo + r.randint(1 if not g.bad else -2, 9)
        return op, f"{seed}{{out}} = m.randint({lo}, {hi}, ({sh}{',' if len(shape) == 1 else ''}))"
    x = g.operand()
    if op in ("rand_like", "randn_like"):
        return op, f"{seed}{{out}} = m.{op}({x}{', dtype=m.' + g.dtype(FLOATS) if r.random() < 0.3 else ''})"
    if op == "full_like":
        return op, f"m.full_like({x}, {g.scalar()}{', ' + kw if kw and r.random() < 0.5 else ''})"
    if op.endswith("_like"):
        return op, f"m.{op}({x}{', ' + kw if kw and r.random() < 0.5 else ''})"
    if op == "new_full":
        return op, f"({x}).new_full(({sh}{',' if len(shape) == 1 else ''}), {g.scalar()})"
    return op, f"({x}).{op}({sh}{', ' + kw if kw and r.random() < 0.5 else ''})"


def gen_view(g):
    r = g.r
    name = g.pick()
    if name is None:
        return None
    t = g.t(name)
    nd, shape = t.dim(), tuple(t.shape)
    ops = ["view", "reshape", "transpose", "permute", "expand", "narrow", "select", "slice", "unfold",
           "as_strided", "squeeze", "unsqueeze", "flatten", "diagonal", "movedim", "split", "chunk", "unbind",
           "t", "contiguous", "clone", "detach", "to", "view_as", "mT", "swapaxes", "unflatten"]
    op = r.choice([o for o in ops if o in AVAILABLE or o in ("slice", "to")])
    d = g.dim(t)
    if op in ("view", "reshape"):
        n = t.numel()
        divs = [k for k in range(1, n + 1) if n % k == 0] or [0]
        a = r.choice(divs)
        new = r.choice([(n,), (a, n // a if a else 0), (-1,), (a, -1), (1, a, -1), ()])
        if g.bad:
            new = (n + 1,) if n != 0 else (-1, 0)
        if new == () and n != 1:
            new = (-1,)
        return op, f"{name}.{op}({', '.join(map(str, new)) if new else '()'})"
    if op in ("transpose", "swapaxes"):
        return op, f"{name}.{op}({d}, {g.dim(t)})"
    if op == "permute":
        p = list(range(nd))
        r.shuffle(p)
        if g.bad:
            p = p + [0] if r.random() < 0.5 else [0] * max(nd, 2)
        return op, f"{name}.permute({', '.join(map(str, p))}{',' if len(p) == 1 else ''})" if p else \
            f"{name}.permute(())"
    if op == "expand":
        new = [s if s != 1 or r.random() < 0.5 else r.randint(0, 3) for s in shape]
        new = [r.choice([-1, s]) for s in new]
        if r.random() < 0.3:
            new = [r.randint(1, 3)] + new
        if g.bad:
            new = [s + 1 if s > 1 else 3 for s in shape] or [-2]
        return op, f"{name}.expand({', '.join(map(str, new))}{',' if len(new) == 1 else ''})" if new else \
            f"{name}.expand(())"
    if op == "narrow" and nd:
        size = shape[int(d) % nd] if not g.bad else 1
        start = r.randint(-size, size) if size else 0
        length = r.randint(0, max(0, size - (start % size if size and start < 0 else start)))
        if g.bad:
            length = size + 2
        return op, f"{name}.narrow({d}, {start}, {length})"
    if op == "select" and nd:
        size = shape[int(d) % nd] if not g.bad else 1
        i = r.randint(-size, size - 1) if size and not g.bad else size + r.randint(0, 2)
        return op, f"{name}.select({d}, {i})"
    if op == "slice" and nd:
        parts = []
        for _ in range(r.randint(1, nd)):
            a, b, c = r.choice(["", "-2", "1", "0", "3"]), r.choice(["", "-1", "2", "4", "10"]), \
                r.choice(["", "1", "2", "3"] if not g.bad else ["0", "-1"])
            parts.append(f"{a}:{b}" + (f":{c}" if c else ""))
        return op, f"{name}[{', '.join(parts)}]"
    if op == "unfold" and nd:
        size = shape[int(d) % nd]
        k = r.randint(0, size) if not g.bad else r.choice([size + 1, -1])
        return op, f"{name}.unfold({d}, {k}, {r.randint(1, 3) if not g.bad or r.random() < .5 else 0})"
    if op == "as_strided":
        n = t.numel()
        new = g.shape(max_ndim=3)
        strides = [r.randint(0, 3) for _ in new]
        need = 1 + sum((s - 1) * st for s, st in zip(new, strides) if s > 0) if 0 not in new else 0
        if n < need + t.storage_offset() or g.bad:
            past_end = t.untyped_storage().nbytes() // max(t.element_size(), 1)
            return op, f"{name}.as_strided({new}, {tuple(strides)}, {past_end})"
        return op, f"{name}.as_strided({new}, {tuple(strides)})"
    if op == "squeeze":
        return op, r.choice([f"{name}.squeeze()", f"{name}.squeeze({d})", f"m.squeeze({name}, {g.dims(t)})"])
    if op == "unsqueeze":
        return op, f"{name}.unsqueeze({r.randint(-nd - 1, nd) if not g.bad else nd + 2})"
    if op == "flatten":
        return op, f"{name}.flatten({d}{', ' + g.dim(t) if r.random() < 0.6 else ''})"
    if op == "diagonal":
        return op, f"{name}.diagonal({r.randint(-2, 2)}, {d}, {g.dim(t)})"
    if op == "movedim":
        return op, f"m.movedim({name}, {d}, {g.dim(t)})"
    if op in ("split", "chunk") and nd:
        k = r.randint(0 if g.bad else 1, 4)
        pick = f"[{r.randint(0, 1)}]" if r.random() < 0.5 else ""
        if op == "split" and r.random() < 0.3 and not g.bad:
            size = shape[int(d) % nd]
            a = r.randint(0, size)
            return op, f"{name}.split([{a}, {size - a}], {d}){pick}"
        return op, f"{name}.{op}({k}, {d}){pick}"
    if op == "unbind":
        return op, f"{name}.unbind({d})" + (f"[0]" if r.random() < 0.5 else "")
    if op == "t":
        return op, f"{name}.t()"
    if op == "mT":
        return op, f"{name}.mT"
    if op == "to":
        to = f"{name}.to(m.{g.dtype()})"
        conv = r.choice(['float', 'double', 'half', 'bfloat16', 'int', 'long', 'bool', 'short', 'byte', 'char'])
        return op, r.choice([to, f"{name}.{conv}()"])
    if op == "view_as":
        return op, f"{name}.view_as({g.operand(shape=shape) if not g.bad else g.operand()})"
    if op == "unflatten" and nd:
        size = shape[int(d) % nd]
        return op, f"{name}.unflatten({d}, ({r.choice([1, size]) if not g.bad else size + 1}, -1))"
    if op in ("contiguous", "clone", "detach"):
        return op, f"{name}.{op}()"
    return None


def gen_unary(g):
    r = g.r
    op = r.choice([o for o in UNARY if o in AVAILABLE])
    name = g.pick() if r.random() < 0.7 else None
    x = name or g.operand()
    fn = f"m.{op}"
    form = r.choice(["func", "method", "inplace", "out"])
    if form == "inplace" and name and op + "_" in AVAILABLE_METHODS and g.writable(name):
        return op, f"{name}.{op}_()"
    if form == "out":
        return op, f"{fn}({x}, out={_out_tensor(g, g.t(name) if name else None)})"
    if form == "method" and op in AVAILABLE_METHODS:
        return op, f"({x}).{op}()"
    return op, f"{fn}({x})"


def _second(g, t):
    """A second operand for t: a broadcastable tensor, a Python scalar or a 0-dim tensor."""
    r = g.r
    k = r.random()
    if k < 0.3:
        return g.scalar()
    if k < 0.45:
        return g.creation((), g.dtype())
    shp = g.broadcast_shape(tuple(t.shape))
    return g.operand(lambda u: tuple(u.shape) == shp, shape=shp)


def gen_binary(g):
    r = g.r
    op = r.choice([o for o in BINARY if o in AVAILABLE])
    name = g.pick() if r.random() < 0.7 else None
    x = name or g.operand()
    t = g.t(name) if name else eval(x, dict(g.ns))  # noqa: S307 - our own expression
    y = _second(g, t)
    kw = ""
    if op in ("add", "sub") and r.random() < 0.2:
        kw = f", alpha={r.choice(['2', '0.5', '-1', 'True'])}"
    if op == "div" and r.random() < 0.4:
        kw = f", rounding_mode={r.choice(['None', repr('trunc'), repr('floor')] + ([repr('round')] if g.bad else []))}"
    form = r.choice(["func", "method", "op", "rop", "inplace", "iop", "out"])
    sym = OPERATORS.get(op)
    if form == "op" and sym and not kw:
        return op, f"({x}) {sym} ({y})"
    if form == "rop" and sym and not kw:
        return op, f"{g.scalar()} {sym} ({x})"
    if form in ("iop", "inplace") and name and (not g.writable(name) or _order_dependent(t, _value_of(g, y))):
        form = "func"
    if form == "iop" and sym and name and not kw:
        return op, f"{name} {sym}= ({y}); {{out}} = {name}"
    if form == "inplace" and name and op + "_" in AVAILABLE_METHODS:
        return op, f"{name}.{op}_({y}{kw})"
    if form == "out":
        return op, f"m.{op}({x}, {y}{kw}, out={_out_tensor(g, t)})"
    if form == "method" and op in AVAILABLE_METHODS:
        return op, f"({x}).{op}({y}{kw})"
    return op, f"m.{op}({x}, {y}{kw})"


def gen_ternary(g):
    r = g.r
    ops = [o for o in ["where", "clamp", "lerp", "masked_fill", "isclose", "allclose", "equal", "addcmul", "addcdiv",
                       "clamp_min", "clamp_max"] if o in AVAILABLE]
    op = r.choice(ops)
    name = g.pick() or None
    if name is None:
        return None
    t = g.t(name)
    shp = g.broadcast_shape(tuple(t.shape))
    if op == "where":
        c = g.operand(lambda u: u.dtype == torch.bool, shape=shp, dtype="bool" if not g.bad else "int32")
        return op, r.choice([f"m.where({c}, {name}, {_second(g, t)})", f"m.where({c}, {g.scalar()}, {name})",
                             f"{name}.where({c}, {_second(g, t)})"])
    if op == "clamp":
        lo = r.choice(["None", g.scalar("int"), g.scalar("float"), _second(g, t)])
        hi = r.choice(["None", g.scalar("int"), g.scalar("float")]) if lo != "None" or r.random() < 0.5 else \
            g.scalar("float")
        form = r.choice(["m.clamp({x}, {lo}, {hi})", "{x}.clamp(min={lo}, max={hi})", "{x}.clamp_({lo}, {hi})",
                         "m.clip({x}, {lo}, {hi})", "{x}.clip_({lo}, {hi})"])
        if not g.writable(name):
            form = form.replace("_(", "(")
        return op, form.format(x=name, lo=lo, hi=hi)
    if op == "lerp":
        w = r.choice([g.scalar("float"), g.operand(lambda u: tuple(u.shape) == shp, shape=shp, dtype=str(t.dtype)[6:])])
        return op, f"m.lerp({name}, {_second(g, t)}, {w})"
    if op == "masked_fill":
        mask = g.operand(lambda u: u.dtype == torch.bool, shape=shp, dtype="bool" if not g.bad else "uint8")
        val = r.choice([g.scalar(), g.creation((), g.dtype())])
        inplace = f"{name}.masked_fill_({mask}, {val})" if g.writable(name) else f"{name}.masked_fill({mask}, {val})"
        return op, r.choice([f"{name}.masked_fill({mask}, {val})", inplace, f"m.masked_fill({name}, {mask}, {val})"])
    if op in ("addcmul", "addcdiv"):
        value = r.choice(["", f", value={g.scalar()}"])
        form = r.choice([f"m.{op}({name}, {_second(g, t)}, {_second(g, t)}{value})",
                         f"{name}.{op}({_second(g, t)}, {_second(g, t)}{value})"]
                        + ([f"{name}.{op}_({_second(g, t)}, {_second(g, t)}{value})"] if g.writable(name) else []))
        return op, form
    if op in ("clamp_min", "clamp_max"):
        bound = r.choice([g.scalar(), _second(g, t)])
        return op, r.choice([f"m.{op}({name}, {bound})", f"{name}.{op}({bound})"]
                            + ([f"{name}.{op}_({bound})"] if g.writable(name) else []))
    if op == "isclose":
        return op, f"m.isclose({name}, {_second(g, t)})"
    if op == "allclose":
        return op, f"m.allclose({name}, {_second(g, t)})"
    return op, f"m.equal({name}, {g.operand()})"


def gen_reduce(g):
    r = g.r
    op = r.choice([o for o in REDUCE if o in AVAILABLE])
    name = g.pick()
    if name is None:
        return None
    t = g.t(name)
    args = []
    if op in ("max", "min", "argmax", "argmin", "all", "any"):
        if r.random() < 0.7:
            args.append(g.dim(t) if op in ("max", "min") else g.dims(t) if op in ("all", "any") else g.dim(t))
            if r.random() < 0.5:
                args.append(f"keepdim={r.choice(['True', 'False'])}")
    elif op == "norm":
        args.append(f"p={r.choice(['1', '2', 'math.inf', '0.5', repr('fro')])}")
        if r.random() < 0.6:
            args += [f"dim={g.dims(t)}", f"keepdim={r.choice(['True', 'False'])}"]
    elif op == "logsumexp":
        args += [g.dims(t) if not g.bad else g.dim(t), f"keepdim={r.choice(['True', 'False'])}"]
    else:
        if r.random() < 0.7:
            args.append(f"dim={g.dims(t)}")
            if r.random() < 0.5:
                args.append(f"keepdim={r.choice(['True', 'False'])}")
        if op in ("std", "var", "std_mean", "var_mean") and r.random() < 0.5:
            args.append(f"correction={r.choice(['0', '1', '2'])}")
        if op in ("sum", "mean", "prod") and r.random() < 0.3:
            args.append(f"dtype=m.{g.dtype()}")
    a = ", ".join(args)
    if r.random() < 0.5 and op in AVAILABLE_METHODS:
        return op, f"{name}.{op}({a})"
    call = f"m.{op}({name}{', ' + a if a else ''})"
    return op, call if op in ("std_mean", "var_mean", "count_nonzero") else _maybe_out(g, call, t)


def gen_scan(g):
    r = g.r
    op = r.choice([o for o in ["cumsum", "cumprod", "softmax", "log_softmax"] if o in AVAILABLE])
    name = g.pick()
    if name is None:
        return None
    t = g.t(name)
    kw = f", dtype=m.{g.dtype()}" if r.random() < 0.3 else ""
    if r.random() < 0.5 and op in AVAILABLE_METHODS:
        return op, f"{name}.{op}({g.dim(t)}{kw})"
    return op, _maybe_out(g, f"m.{op}({name}, {g.dim(t)}{kw})", t)


def gen_matmul(g):
    op, call = _matmul_call(g)
    return op, call if "@" in call else _maybe_out(g, call)


def _matmul_call(g):
    r = g.r
    op = r.choice([o for o in ["mm", "bmm", "matmul", "mv", "dot", "inner", "outer", "addmm", "addmv", "baddbmm"]
                   if o in AVAILABLE])
    dt = g.dtype(["float32", "float32", "float64", "float16", "bfloat16", "int64", "int32"])
    dt2 = dt if not g.bad or r.random() < 0.5 else g.dtype()
    n, k, p, b = (r.randint(0, 4) for _ in range(4))
    k2 = k if not g.bad or dt2 != dt else k + 1

    def opd(shape, d=dt):
        return g.operand(lambda u: tuple(u.shape) == tuple(shape) and str(u.dtype)[6:] == d, shape=tuple(shape),
                         dtype=d, p_existing=0.3)
    if op == "mm":
        return op, f"m.mm({opd((n, k))}, {opd((k2, p), dt2)})"
    if op == "bmm":
        return op, f"m.bmm({opd((b, n, k))}, {opd((b, k2, p), dt2)})"
    if op == "mv":
        return op, f"m.mv({opd((n, k))}, {opd((k2,), dt2)})"
    if op in ("dot", "inner"):
        return op, f"m.{op}({opd((k,))}, {opd((k2,), dt2)})"
    if op == "outer":
        return op, f"m.outer({opd((n,))}, {opd((p,), dt2)})"
    if op == "addmm":
        return op, f"m.addmm({opd(r.choice([(n, p), (p,), (1, p)]))}, {opd((n, k))}, {opd((k2, p), dt2)}, " \
                   f"beta={r.choice(['1', '0', '0.5'])}, alpha={r.choice(['1', '2'])})"
    if op == "addmv":
        return op, f"m.addmv({opd((n,))}, {opd((n, k))}, {opd((k2,), dt2)})"
    if op == "baddbmm":
        return op, f"m.baddbmm({opd((b, n, p))}, {opd((b, n, k))}, {opd((b, k2, p), dt2)})"
    ra, rb = r.randint(1, 4), r.randint(1, 4)
    batch = [r.choice([1, b]) for _ in range(2)]
    sa = (batch[: max(0, ra - 2)] + [n, k])[-ra:] if ra > 1 else [k]
    sb = (batch[: max(0, rb - 2)][::-1] + [k2, p])[-rb:] if rb > 1 else [k2]
    return op, f"m.matmul({opd(sa)}, {opd(sb, dt2)})" if r.random() < 0.7 else f"({opd(sa)}) @ ({opd(sb, dt2)})"


def gen_join(g):
    r = g.r
    op = r.choice([o for o in ["cat", "stack"] if o in AVAILABLE])
    name = g.pick()
    if name is None:
        return None
    t = g.t(name)
    shape = tuple(t.shape)
    d = int(g.dim(t)) if not g.bad else 0
    parts = [name]
    for _ in range(r.randint(0, 2)):
        s = list(shape)
        if op == "cat" and s and not g.bad:
            s[d % len(s)] = r.randint(0, 3)
        if g.bad and s:
            s[0] += 1
        if op == "cat" and r.random() < 0.1:
            s = [0]  # legacy: an empty 1-d tensor joins anything
        dt = r.choice([str(t.dtype)[6:], g.dtype()])
        parts.append(g.operand(lambda u: list(u.shape) == s, shape=tuple(s), dtype=dt))
    dim = g.dim(t) if g.bad else str(d if op == "cat" else r.randint(-len(shape) - 1, len(shape)))
    return op, f"m.{op}([{', '.join(parts)}], {dim})"


def gen_index(g):
    r = g.r
    name = g.pick(lambda u: u.dim() > 0)
    if name is None:
        return None
    t = g.t(name)
    shape = tuple(t.shape)
    kind = r.choice(["get", "get", "set", "index_select", "gather", "index_put"])
    if kind in ("set", "index_put") and not g.writable(name, strict=True):
        kind = "get"
    if kind == "index_select" and "index_select" in AVAILABLE:
        d = g.dim(t)
        idx = g.index_tensor(shape[int(d) % len(shape)] if not g.bad else 2)
        return "index_select", f"m.index_select({name}, {d}, {idx})"
    if kind == "gather" and "gather" in AVAILABLE:
        d = int(g.dim(t)) if not g.bad else 0
        ishape = tuple(r.randint(0, s) for s in shape)
        return "gather", f"m.gather({name}, {d}, {g.index_tensor(shape[d % len(shape)], ishape)})"
    items, dim = [], 0
    for _ in range(r.randint(1, len(shape) + 1)):
        if dim >= len(shape):
            items.append(r.choice(["None", "...", "None"]))
            continue
        size = shape[dim]
        k = r.random()
        if k < 0.3:
            hi = size + (2 if g.bad else 0)
            items.append(str(r.randint(-hi, hi - 1)) if hi else "0")
        elif k < 0.55:
            items.append(f"{r.choice(['', '1', '-2'])}:{r.choice(['', '3', '-1'])}{r.choice(['', ':2', ':1', ':3'])}")
        elif k < 0.75:
            items.append(g.index_tensor(size) if r.random() < 0.7 else
                         "[" + ", ".join(str(r.randint(-size, size - 1) if size else 0)
                                         for _ in range(r.randint(1, 3))) + "]")
        elif k < 0.85:
            items.append("None")
            dim -= 1
        elif k < 0.95:
            mshape = shape[dim: dim + r.randint(1, 2)]
            items.append(g.creation(mshape, "bool", "contig"))
            dim += len(mshape) - 1
        else:
            items.append(r.choice(["...", "True", "False"]))
            dim = len(shape) - (len(shape) - dim - 1)
        dim += 1
    idx = ", ".join(items)
    if kind == "index_put" and "index_put" in AVAILABLE:
        n = r.randint(1, len(shape))
        inds = ", ".join(g.index_tensor(shape[i], (r.randint(0, 3),) if i == 0 else None) for i in range(n))
        val = g.creation((), str(t.dtype)[6:]) if r.random() < 0.7 else g.creation((1,), str(t.dtype)[6:])
        return "index_put", f"{name}.index_put_(({inds},), {val}, accumulate={r.choice(['True', 'False'])})"
    if kind == "set":
        try:
            sub = eval(f"{name}[{idx}]", dict(g.ns))  # noqa: S307 - our own expression
            vshape = g.broadcast_shape(tuple(sub.shape))
        except Exception:  # noqa: BLE001 - the write raises too: any value
            vshape = ()
        val = r.choice([g.scalar(), g.creation(vshape, g.dtype() if r.random() < 0.3 else str(t.dtype)[6:])])
        return "setitem", f"{name}[{idx}] = {val}; {{out}} = {name}"
    return "getitem", f"{name}[{idx}]"


def gen_autograd(g):
    """Backward through the newest float tensor that requires grad, then read the leaves' gradients."""
    name = g.pick(lambda u: u.requires_grad)
    if name is None:
        return None
    red = g.r.choice(["sum()", "sum()", "mean()", "square().sum()"])
    return "backward", f"({name}).float().{red}.backward(); {{out}} = {g.leaves[0]}.grad"


OPS = [  # (family, generator, weight)
    ("creation", gen_creation, 8),
    ("view", gen_view, 16),
    ("unary", gen_unary, 12),
    ("binary", gen_binary, 18),
    ("ternary", gen_ternary, 6),
    ("reduce", gen_reduce, 10),
    ("scan", gen_scan, 5),
    ("matmul", gen_matmul, 6),
    ("join", gen_join, 5),
    ("index", gen_index, 12),
]

from gen_nn import NN_OPS  # noqa: E402
from gen_modules import MODULE_OPS  # noqa: E402
from gen_optim import OPTIM_OPS  # noqa: E402
from gen_sched import SCHED_OPS  # noqa: E402
from gen_linalg import LINALG_OPS  # noqa: E402
from gen_sort import SORT_OPS  # noqa: E402
from gen_scatter import SCATTER_OPS  # noqa: E402
from gen_shape import SHAPE_OPS  # noqa: E402
from gen_quantized import QUANTIZED_OPS  # noqa: E402
from gen_sparse import SPARSE_OPS  # noqa: E402
OPS += NN_OPS + MODULE_OPS + OPTIM_OPS + SCHED_OPS + LINALG_OPS + SORT_OPS + SCATTER_OPS + SHAPE_OPS + QUANTIZED_OPS
OPS += SPARSE_OPS

try:
    import ember as _ember  # noqa: PLC0415 - only the names are read
    AVAILABLE = {n for n in dir(_ember) if not n.startswith("_")}
    AVAILABLE_METHODS = {n for n in dir(_ember.Tensor) if not n.startswith("__")}
except ImportError:
    AVAILABLE = {n for n in dir(torch) if not n.startswith("_")}
    AVAILABLE_METHODS = {n for n in dir(torch.Tensor) if not n.startswith("__")}


def generate(seed):
    """A random program (list of statements), deterministic in the seed."""
    g = Gen(seed)
    r = g.r
    autograd = r.random() < 0.2
    n_inputs = r.randint(1, 2)
    for _ in range(n_inputs):
        out = g.new_name()
        if autograd:
            g.leaves.append(out)
            shape = g.shape()
            if not g.add(f"{out} = m.tensor({g.literal(shape, 'float32' if r.random() < .7 else 'float64')}, "
                         f"dtype=m.{r.choice(['float32', 'float64'])}, requires_grad=True)", out, "tensor"):
                return g.statements
        else:
            src = g.creation(g.shape(), g.dtype())
            if not g.add(f"{out} = {src}", out, "tensor"):
                return g.statements
    invalid_at = r.randint(0, MAX_STATEMENTS) if r.random() < INVALID_SHARE else -1
    families = tuple(filter(None, os.environ.get("EMBER_FUZZ_FAMILIES", "").split(",")))  # --families
    ops = [o for o in OPS if not families or o[0].startswith(families)]
    weights = [w for _, _, w in ops]
    for i in range(r.randint(1, MAX_STATEMENTS)):
        g.bad = i == invalid_at
        fam = r.choices(ops, weights)[0]
        try:
            res = fam[1](g)
        except Exception:  # noqa: BLE001 - a generator that cannot build its operands skips the statement
            res = None
        if res is None:
            continue
        op, src = res
        out = g.new_name()
        src = src.format(out=out) if "{out}" in src else f"{out} = {src}"
        if not g.add(src, out, op):
            return g.statements
    if autograd:
        res = gen_autograd(g)
        if res:
            out = g.new_name()
            g.add(res[1].format(out=out), out, res[0])
    return g.statements
