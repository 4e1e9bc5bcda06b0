"""Shape-building ops for the differential tester: flip/roll/rot90, tile/repeat/repeat_interleave, tril/triu and the
diagonal builders, the *stack and *split families, atleast_*d, broadcast_to/broadcast_tensors, meshgrid,
cartesian_prod/combinations, kron/cross, diff, trapezoid, vander and tril/triu_indices."""
NAMES = ["flip", "fliplr", "flipud", "roll", "rot90", "tile", "repeat", "repeat_interleave", "tril", "triu", "diag",
         "diag_embed", "diagflat", "block_diag", "stack_family", "tensor_split", "dir_split", "atleast",
         "broadcast_to", "broadcast_tensors", "meshgrid", "cartesian_prod", "combinations", "kron", "cross", "diff",
         "trapezoid", "vander", "tri_indices", "ravel"]


def _ints(g, n, lo, hi):
    return ", ".join(str(g.r.randint(lo, hi)) for _ in range(n))


def gen_shape(g):
    r = g.r
    op = r.choice(NAMES)
    name, t = g.existing()
    if name is None:
        return None
    shape, nd = tuple(t.shape), t.dim()
    dims = g.dims(t)
    if op == "flip":
        return op, r.choice([f"m.flip({name}, {dims if dims != 'None' else '()'})", f"{name}.flip({g.dim(t)})"])
    if op in ("fliplr", "flipud"):
        return op, f"m.{op}({name})"
    if op == "roll":
        if r.random() < 0.3:
            return op, f"m.roll({name}, {r.randint(-5, 5)})"
        k = r.randint(1, max(nd, 1))
        return op, f"{name}.roll(({_ints(g, k, -4, 6)},), ({', '.join(g.dim(t) for _ in range(k))},))"
    if op == "rot90":
        return op, f"m.rot90({name}, {r.randint(-3, 5)}, [{g.dim(t)}, {g.dim(t)}])" if r.random() < 0.8 else \
            f"{name}.rot90()"
    if op == "tile":
        return op, f"m.tile({name}, ({_ints(g, r.randint(0 if not g.bad else 1, 4), 0 if not g.bad else -1, 3)},))"
    if op == "repeat":
        k = r.randint(nd, nd + 2) if not g.bad else max(nd - 1, 0)
        return op, f"{name}.repeat({_ints(g, k, 0, 3)}{',' if k == 1 else ''})" if k else f"{name}.repeat(())"
    if op == "repeat_interleave":
        if r.random() < 0.5:
            return op, f"m.repeat_interleave({name}, {r.randint(0 if not g.bad else -1, 3)}, dim={g.dim(t, True)})"
        d = g.dim(t)
        n = shape[int(d) % nd] if nd else 1
        reps = f"m.tensor([{_ints(g, n + (1 if g.bad else 0), 0, 3)}], dtype=m.int64)"
        return op, f"{name}.repeat_interleave({reps}, dim={d})"
    if op in ("tril", "triu"):
        forms = [f"m.{op}({name}, {r.randint(-3, 3)})", f"{name}.{op}()"]
        if g.writable(name, strict=True):
            forms.append(f"{name}.{op}_({r.randint(-3, 3)})")
        return op, r.choice(forms)
    if op == "diag":
        return op, f"m.diag({name}, {r.randint(-2, 2)})"
    if op == "diag_embed":
        return op, f"m.diag_embed({name}, {r.randint(-2, 2)}, {g.dim(t)}, {g.dim(t)})" if r.random() < 0.5 else \
            f"m.diag_embed({name})"
    if op == "diagflat":
        return op, f"m.diagflat({name}, {r.randint(-2, 2)})"
    other = g.operand(lambda u: u.dtype == t.dtype, shape=g.shape(max_ndim=3), dtype=str(t.dtype)[6:])
    if op == "block_diag":
        return op, f"m.block_diag({name}, {other})"
    if op == "stack_family":
        f = r.choice(["hstack", "vstack", "dstack", "column_stack", "row_stack", "concat", "concatenate"])
        same = g.operand(lambda u: tuple(u.shape) == shape, shape=shape)
        dim = f", {g.dim(t)}" if f in ("concat", "concatenate") else ""
        return op, f"m.{f}([{name}, {r.choice([same, other])}]{dim})"
    if op == "tensor_split":
        d = g.dim(t)
        how = r.choice([str(r.randint(1 if not g.bad else 0, 4)), f"[{_ints(g, r.randint(0, 3), -2, 5)}]"])
        return op, f"m.tensor_split({name}, {how}, {d})[{r.choice([0, -1])}]"
    if op == "dir_split":
        f = r.choice(["hsplit", "vsplit", "dsplit"])
        how = r.choice([str(r.randint(1, 3)), f"[{_ints(g, r.randint(1, 2), 0, 4)}]"])
        return op, f"m.{f}({name}, {how})[0]"
    if op == "atleast":
        return op, f"m.atleast_{r.randint(1, 3)}d({name})"
    if op == "broadcast_to":
        new = list(g.broadcast_shape(shape))
        target = [r.randint(1, 3)] * r.randint(0, 1) + list(shape)
        return op, f"m.broadcast_to({name}, {tuple(target) if not g.bad else tuple(new) + (5,)})"
    if op == "broadcast_tensors":
        shp = g.broadcast_shape(shape)
        return op, f"m.broadcast_tensors({name}, {g.operand(lambda u: tuple(u.shape) == shp, shape=shp)})[1]"
    flat = g.operand(lambda u: u.dim() == 1 and u.dtype == t.dtype, shape=(r.randint(0, 4),), dtype=str(t.dtype)[6:])
    if op == "meshgrid":
        ind = f", indexing={r.choice(['ij', 'xy'])!r}" if r.random() < 0.7 else ""
        return op, f"m.meshgrid({flat}, {flat}{ind})[{r.randint(0, 1)}]"
    if op == "cartesian_prod":
        return op, f"m.cartesian_prod({flat}, {flat})"
    if op == "combinations":
        kw = ", with_replacement=True" if r.random() < 0.4 else ""
        return op, f"m.combinations({flat}, {r.randint(0, 3)}{kw})"
    if op == "kron":
        return op, f"m.kron({name}, {other})"
    if op == "cross":
        s = list(shape) if 3 in shape else [r.randint(1, 2), 3]
        a = g.creation(tuple(s), g.dtype(["float32", "float64", "int64", "int32"]))
        b = g.creation(tuple(s), g.dtype(["float32", "float64", "int64"]))
        where = [i for i, v in enumerate(s) if v == 3]
        return op, f"m.linalg.cross({a}, {b}, dim={r.choice(where) if not g.bad else 0})" if r.random() < 0.5 else \
            f"m.cross({a}, {b}, dim={r.choice(where)})"
    if op == "diff":
        pre = f", prepend={g.creation(shape[:-1] + (1,), str(t.dtype)[6:])}" if nd and r.random() < 0.3 else ""
        return op, f"m.diff({name}, n={r.randint(0, 3)}, dim={g.dim(t)}{pre})"
    if op == "trapezoid":
        f = r.choice(["trapezoid", "cumulative_trapezoid", "trapz"])
        dx = f", dx={r.choice(['0.5', '2'])}" if f != "trapz" and r.random() < 0.4 else ""
        return op, f"m.{f}({name}{dx}, dim={g.dim(t)})"
    if op == "vander":
        kw = f", N={r.randint(0, 4)}" if r.random() < 0.5 else ""
        return op, f"m.vander({flat}{kw}, increasing={r.choice(['True', 'False'])})"
    if op == "tri_indices":
        f = r.choice(["tril_indices", "triu_indices"])
        return op, f"m.{f}({r.randint(0, 4)}, {r.randint(0, 4)}, {r.randint(-2, 2)})"
    return op, r.choice([f"m.ravel({name})", f"{name}.ravel()"])


SHAPE_OPS = [("shape", gen_shape, 8)]
