"""Sorting, searching and order statistics for the differential tester: sort/argsort/msort, topk, kthvalue,
median/nanmedian, mode, unique/unique_consecutive, searchsorted/bucketize, aminmax, cummax/cummin,
logcumsumexp, quantile/nanquantile, histc, bincount, cov/corrcoef, on random shapes, layouts and arguments."""
SORT_DTYPES = ["uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64", "bool"]
FLOATS = ["float32", "float64", "float16", "bfloat16"]
NAMES = ["sort", "argsort", "msort", "topk", "kthvalue", "median", "nanmedian", "mode", "unique",
         "unique_consecutive", "searchsorted", "bucketize", "aminmax", "cummax", "cummin", "logcumsumexp",
         "quantile", "nanquantile", "histc", "bincount", "cov", "corrcoef"]


def _input(g, dtypes=SORT_DTYPES, min_dim=0):
    """An existing tensor of one of dtypes with at least min_dim dims, or a fresh one."""
    return g.operand(lambda u: str(u.dtype)[6:] in dtypes and u.dim() >= min_dim,
                     shape=tuple(g.r.randint(1, 4) for _ in range(max(min_dim, g.r.randint(0, 3)))),
                     dtype=g.dtype(dtypes))


def _size(g, x, d):
    t = eval(x, dict(g.ns))  # noqa: S307 - our own expression
    return t, (t.shape[int(d) % t.dim()] if t.dim() else 1)


def gen_sort(g):
    r = g.r
    op = r.choice(NAMES)
    x = _input(g)
    t = eval(x, dict(g.ns))  # noqa: S307 - our own expression
    d = g.dim(t)
    keep = f", keepdim={r.choice(['True', 'False'])}" if r.random() < 0.5 else ""
    if op == "sort":
        kw = r.choice(["", ", descending=True", ", stable=True", ", stable=True, descending=True"])
        pick = r.choice(["[0]", "[1]", ".values", ".indices"])
        return op, r.choice([f"m.sort({x}, {d}{kw}){pick}", f"({x}).sort(dim={d}{kw}){pick}"])
    if op == "argsort":
        return op, f"m.argsort({x}, dim={d}, descending={r.choice(['True', 'False'])}, stable=True)"
    if op == "msort":
        return op, f"m.msort({x})"
    _, size = _size(g, x, d)
    if op == "topk":
        k = r.randint(0, size) if not g.bad else size + 1
        kw = r.choice(["", ", largest=False", ", sorted=True", ", largest=False, sorted=True"])
        return op, f"m.topk({x}, {k}, {d}{kw})[0]"  # values: the indices of ties are the algorithm's
    if op == "kthvalue":
        k = r.randint(1, size) if size and not g.bad else size + 1
        return op, f"m.kthvalue({x}, {k}, {d}{keep})[0]"
    if op in ("median", "nanmedian", "mode"):
        if op != "mode" and r.random() < 0.3:
            return op, f"m.{op}({x})"
        return op, f"m.{op}({x}, {d}{keep}){r.choice(['[0]', '.values'])}"
    if op in ("unique", "unique_consecutive"):
        kw = r.choice(["", ", return_inverse=True", ", return_counts=True",
                       ", return_inverse=True, return_counts=True"])
        dim = f", dim={d}" if r.random() < 0.3 else ""
        sort = ", sorted=True" if op == "unique" and r.random() < 0.5 else ""
        return op, f"m.{op}({x}{sort}{kw}{dim})"
    if op in ("searchsorted", "bucketize"):
        dt = g.dtype(["float32", "float64", "int64", "int32"])
        n = r.randint(0, 5)
        seq = f"m.sort({g.creation((n,), dt)})[0]"
        values = g.operand(shape=g.shape(3))
        right = f", right={r.choice(['True', 'False'])}" if r.random() < 0.5 else ""
        int32 = ", out_int32=True" if r.random() < 0.2 else ""
        if op == "bucketize":
            return op, f"m.bucketize({values}, {seq}{int32}{right})"
        side = f", side={r.choice(['left', 'right'])!r}" if not right and r.random() < 0.3 else ""
        return op, f"m.searchsorted({seq}, {values}{int32}{right}{side})"
    if op == "aminmax":
        kw = f", dim={d}{keep}" if r.random() < 0.6 else ""
        return op, f"m.aminmax({x}{kw}){r.choice(['[0]', '[1]', '.min', '.max'])}"
    if op in ("cummax", "cummin"):
        return op, f"m.{op}({x}, {d}){r.choice(['[0]', '[1]'])}"
    xf = _input(g, FLOATS if not g.bad else SORT_DTYPES)
    tf = eval(xf, dict(g.ns))  # noqa: S307 - our own expression
    df = g.dim(tf)
    if op == "logcumsumexp":
        return op, f"m.logcumsumexp({xf}, {df})"
    if op in ("quantile", "nanquantile"):
        interp = f", interpolation={r.choice(['linear', 'lower', 'higher', 'midpoint', 'nearest'])!r}" \
            if r.random() < 0.5 else ""
        dim = f", dim={df}{keep}" if r.random() < 0.6 else ""
        x32 = f"({xf}).to(m.float64 if ({xf}).dtype == m.float64 else m.float32)"  # quantile takes float32/64
        q = r.choice(["0.5", "0.0", "1.0", "0.25", f"m.tensor([0.1, 0.9], dtype={x32}.dtype)"]
                     + (["1.5"] if g.bad else []))
        return op, f"m.{op}({x32}, {q}{dim}{interp})"
    if op == "histc":
        bins = r.randint(1 if not g.bad else -1, 6)
        lo, hi = sorted([r.randint(-3, 3), r.randint(-3, 3)])
        return op, f"m.histc({xf}.float(), bins={bins}, min={lo}, max={hi})"
    if op == "bincount":
        n = r.randint(0, 6)
        vals = g.creation((n,), "int64" if not g.bad else "float32")
        w = f", weights={g.creation((n,), g.dtype(['float32', 'float64']))}" if r.random() < 0.4 else ""
        return op, f"m.bincount(({vals}).abs(){w}, minlength={r.randint(0, 4)})"
    if op in ("cov", "corrcoef"):
        rows, cols = r.randint(1, 3), r.randint(1 if op == "cov" else 2, 4)
        a = g.creation((rows, cols), g.dtype(["float32", "float64"]))
        if op == "cov" and r.random() < 0.4:
            return op, f"m.cov({a}, correction={r.randint(0, 2)})"
        return op, f"m.{op}({a})"
    return None


SORT_OPS = [("sort", gen_sort, 8)]
