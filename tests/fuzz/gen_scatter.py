"""Scatter and indexed writes for the differential tester: scatter/scatter_add/scatter_reduce, index_add/index_copy/
index_fill/index_reduce, take/take_along_dim/put, masked_select/masked_scatter and the *_scatter view writes, as
functions, methods and in place. Writes that would store two values in one element without accumulating (an order
that torch leaves undefined) get indices distinct along the written dim."""
import math

NAMES = ["scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill", "index_reduce", "take",
         "take_along_dim", "put", "masked_select", "masked_scatter", "diagonal_scatter", "select_scatter",
         "slice_scatter"]


def _nest(shape, at):
    """A nested list literal of `shape` whose element at multi-index i is at(i)."""
    def build(prefix):
        if len(prefix) == len(shape):
            return str(at(prefix))
        return "[" + ", ".join(build(prefix + (k,)) for k in range(shape[len(prefix)])) + "]"
    return build(())


def _index(g, shape, dim, size, distinct):
    """An int64 index tensor of `shape` with values in [0, size) (past it when bad); `distinct` makes them differ
    along `dim`."""
    r = g.r
    if g.bad:
        size += 2
    columns = {}

    def at(i):
        if not distinct:
            return r.randrange(size) if size else 0
        key = i[:dim] + i[dim + 1:]
        if key not in columns:
            columns[key] = r.sample(range(max(size, shape[dim])), shape[dim])
        return columns[key][i[dim]]
    return f"m.tensor({_nest(shape, at)}, dtype=m.int64).reshape({tuple(shape)})"


def _call(g, name, op, args, inplace_ok=True):
    """m.op(name, args), name.op(args) or, where name may be written, name.op_(args)."""
    r = g.r
    forms = [f"m.{op}({name}, {args})", f"{name}.{op}({args})"]
    if inplace_ok and g.writable(name, strict=True):
        forms.append(f"{name}.{op}_({args})")
    return r.choice(forms)


def gen_scatter(g):
    r = g.r
    name, t = g.existing(lambda u: u.dim() > 0)
    if name is None:
        return None
    op = r.choice(NAMES)
    shape, nd = tuple(t.shape), t.dim()
    dt = str(t.dtype)[6:]
    d = r.randrange(nd)
    dim = d - nd if r.random() < 0.3 else d
    same_dt = dt if not g.bad or r.random() < 0.5 else g.dtype()
    if op in ("scatter", "scatter_add", "scatter_reduce"):
        ishape = tuple(r.randint(0, s) for s in shape)
        src_shape = tuple(s + r.randint(0, 1) for s in ishape)
        src = g.creation(src_shape, same_dt)
        if op == "scatter":
            if r.random() < 0.3:
                return op, _call(g, name, op, f"{dim}, {_index(g, ishape, d, shape[d], True)}, {g.scalar()}")
            return op, _call(g, name, op, f"{dim}, {_index(g, ishape, d, shape[d], True)}, {src}")
        index = _index(g, ishape, d, shape[d], False)
        if op == "scatter_add":
            return op, _call(g, name, op, f"{dim}, {index}, {src}")
        red = r.choice(["sum", "prod", "mean", "amax", "amin"])
        return op, _call(g, name, op, f"{dim}, {index}, {src}, {red!r}, include_self={r.choice(['True', 'False'])}")
    if op in ("index_add", "index_copy", "index_reduce"):
        n = r.randint(0, shape[d] if op == "index_copy" else 4)
        index = _index(g, (n,), 0, shape[d], op == "index_copy")
        src = g.creation(shape[:d] + (n,) + shape[d + 1:], same_dt)
        if op == "index_add":
            alpha = f", alpha={r.choice(['2', '-1', '0.5'])}" if r.random() < 0.3 else ""
            return op, _call(g, name, op, f"{dim}, {index}, {src}{alpha}")
        if op == "index_copy":
            return op, _call(g, name, op, f"{dim}, {index}, {src}")
        red = r.choice(["prod", "mean", "amax", "amin"])
        return op, _call(g, name, op, f"{dim}, {index}, {src}, {red!r}, include_self={r.choice(['True', 'False'])}")
    if op == "index_fill":
        index = _index(g, (r.randint(0, 3),), 0, shape[d], False)
        return op, _call(g, name, op, f"{dim}, {index}, {r.choice([g.scalar(), g.creation((), g.dtype())])}")
    if op == "take":
        n = t.numel()
        idx = _nest((r.randint(0, 3), r.randint(1, 2)), lambda i: r.randint(-n, n - 1) if n else 0)
        return op, f"m.take({name}, m.tensor({idx}, dtype=m.int64){'' if n or g.bad else '[:0]'})"
    if op == "take_along_dim":
        ishape = tuple(r.choice([1, s, r.randint(0, 3)]) if k == d else r.choice([1, s]) for k, s in enumerate(shape))
        index = _index(g, ishape, d, shape[d], False)
        return op, f"m.take_along_dim({name}, {index}, {dim})" if r.random() < 0.8 else \
            f"m.take_along_dim({name}, {index}.flatten())"
    if op == "put":
        n, accumulate = t.numel(), r.random() < 0.5
        k = r.randint(0, min(n, 4))
        flat = _index(g, (k,), 0, n, not accumulate)
        src = g.creation((k,), same_dt)
        if not g.writable(name, strict=True):
            return op, f"{name}.put({flat}, {src}, accumulate={accumulate})"
        return op, f"{name}.put_({flat}, {src}, accumulate={accumulate}); {{out}} = {name}"
    mask = g.creation(g.broadcast_shape(shape), "bool" if not g.bad else "uint8")
    if op == "masked_select":
        return op, r.choice([f"m.masked_select({name}, {mask})", f"{name}.masked_select({mask})"])
    if op == "masked_scatter":
        src = g.creation((math.prod(shape) + r.randint(0, 2) - (2 if g.bad else 0),), same_dt)
        return op, _call(g, name, op, f"{mask}, {src}")
    if op == "diagonal_scatter":
        if nd < 2:
            return None
        d1, d2 = r.sample(range(nd), 2)
        offset = r.randint(-2, 2)
        view = t.diagonal(offset, d1, d2)
        src = g.creation(tuple(view.shape) if not g.bad else tuple(view.shape) + (1,), same_dt)
        return op, f"m.diagonal_scatter({name}, {src}, {offset}, {d1}, {d2})"
    if op == "select_scatter":
        i = r.randint(-shape[d], shape[d] - 1) if shape[d] else 0
        src = g.creation(shape[:d] + shape[d + 1:], same_dt)
        return op, f"m.select_scatter({name}, {src}, {dim}, {i})"
    start, step = r.choice([None, 0, 1, -2]), r.choice([1, 1, 2, 3])
    end = r.choice([None, shape[d], 2, -1])
    view = t.narrow(d, 0, shape[d])[(slice(None),) * d + (slice(start, end, step),)]
    src = g.creation(tuple(view.shape), same_dt)
    return op, f"m.slice_scatter({name}, {src}, {dim}, {start}, {end}, {step})"


SCATTER_OPS = [("scatter", gen_scatter, 8)]
