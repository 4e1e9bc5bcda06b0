"""Sparse tensors for the differential tester: a COO tensor from a float32/float64/int64 operand (to_sparse, with dense
dims, of the operand masked to its larger values) or from literal indices with duplicates (sparse_coo_tensor), a CSR
one (to_sparse_csr, sparse_csr_tensor), a chain of 0-2 ops, read out as a dense or plain result (to_dense, indices,
values, nnz, sums, products with dense matrices, repr); sometimes the gradient of the values, or an op both libraries
must refuse. Constructors check their invariants (ember's always). Sparse values never stay in the namespace."""
import torch

SDTYPES = ["float32", "float32", "float64", "int64"]
UNARY = ["abs", "sin", "sqrt", "tanh", "neg"]
# all raise in torch but a CSR tensor's fill_ and ones_like (torch fills its values)
REFUSED = ["({0}) + 1", "({0}).exp()", "({0}).view(-1)", "({0}).reshape(-1)", "({0}) == ({0})", "({0}).max()",
           "m.ones_like({0})", "({0}).fill_(1)", "({0}).numpy()", "({0}).contiguous()"]


def _torch(env, src):
    """src's value in torch, or None where it raises."""
    try:
        return eval(src, dict(env))  # noqa: S307 - our own expression
    except Exception:  # noqa: BLE001 - the program raises there too
        return None


def _literal(g, shape, dt):
    """A nested list literal, about half of it zeros."""
    if not shape:
        return "0" if g.chance(0.5) else g.value(dt)
    return "[" + ", ".join(_literal(g, shape[1:], dt) for _ in range(shape[0])) + "]"


def _dense(g, shape, dt):
    """A fresh dense tensor, about half of it zeros."""
    if 0 in shape:
        return f"m.zeros({tuple(shape)}, dtype=m.{dt})"
    return f"m.tensor({_literal(g, tuple(shape), dt)}, dtype=m.{dt})" if shape else f"m.tensor(2, dtype=m.{dt})"


def _values(g, shape, dt, grad=False):
    """A constructor's values (requiring grad when grad)."""
    tail = f"dtype=m.{dt}" + (", requires_grad=True" if grad else "")
    return f"m.tensor({g.literal(shape, dt)}, {tail})" if shape[0] else f"m.zeros({tuple(shape)}, {tail})"


def _coo(g, dt, size=None, sd=None, grad=False):
    """sparse_coo_tensor of literal indices (duplicates likely; out of range or negative when bad): (src, values)."""
    r = g.r
    if size is None:
        sd = r.randint(1, 3)
        size = tuple(r.randint(1, 4) for _ in range(sd)) + ((r.randint(1, 3),) if g.chance(0.2) else ())
    cols = [[r.randrange(n) for n in size[:sd]] for _ in range(r.randint(g.bad, 6))] if all(size[:sd]) else []
    if len(cols) > 1 and g.chance(0.5):
        cols[-1] = list(cols[0])
    if g.bad and cols:
        j = r.randrange(sd)
        r.choice(cols)[j] = r.choice([size[j], size[j] + 2, -1])
    rows = [[c[j] for c in cols] for j in range(sd)]
    idx = f"m.tensor({rows}, dtype=m.int64)" if cols else f"m.zeros({sd}, 0, dtype=m.int64)"
    vals = _values(g, (len(cols),) + tuple(size[sd:]), dt, grad)
    src = "_v" if grad else vals
    given = f", {tuple(size)}" if not g.chance(0.15) else ""
    return f"m.sparse_coo_tensor({idx}, {src}{given}, check_invariants=True)", vals


def _csr(g, dt, size=None):
    """sparse_csr_tensor of a random pattern (a column out of range or a wrong last row pointer when bad)."""
    r = g.r
    n, k = size or (r.randint(1, 4), r.randint(1, 4))
    cols = [sorted(r.sample(range(k), r.randint(0, k))) for _ in range(n)]
    crow = [0]
    for row in cols:
        crow.append(crow[-1] + len(row))
    flat = [c for row in cols for c in row]
    if g.bad:
        if flat:
            flat[r.randrange(len(flat))] = r.choice([k, -1])
        else:
            crow[-1] += 1
    return (f"m.sparse_csr_tensor(m.tensor({crow}), m.tensor({flat}, dtype=m.int64), {_values(g, (len(flat),), dt)}, "
            f"({n}, {k}), check_invariants=True)")


def _source(g):
    """A sparse tensor made from an operand of the program or from literals."""
    r = g.r
    dt = g.dtype(SDTYPES)
    if g.chance(0.3):
        return _coo(g, dt)[0]
    if g.chance(0.1):
        return _csr(g, dt)
    x = g.operand(lambda u: str(u.dtype)[6:] in SDTYPES and u.dim() <= 3, dtype=dt)
    t = eval(x, dict(g.ns))  # noqa: S307 - our own expression
    nd = t.dim()
    x = f"({x} * ({x} > {r.choice(['0', '0.5', '1'])}))" if g.chance(0.6) else x
    if nd == 2 and g.chance(0.35):  # not 3-d batches (ember refuses them) nor 1-d (torch raises IndexError)
        return f"{x}.to_sparse_csr()"
    if g.chance(0.4):
        k = r.randint(1, nd) if nd and not g.bad else r.choice([nd + 1, -1, 0])
        return f"{x}.to_sparse({k})"
    return f"{x}.to_sparse()"


def _like(g, s, dt=None):
    """A second sparse tensor of s's layout, sparse dims and shape (another shape when bad); a COO one's dtype may
    differ (torch adds CSR tensors of one dtype only)."""
    size = tuple(s.shape)
    if g.bad and size:
        size = size[:-1] + (size[-1] + 1,)
    dt = dt or (g.dtype(SDTYPES) if g.chance(0.3) and s.is_sparse else str(s.dtype)[6:])
    if s.is_sparse_csr:
        return _csr(g, dt, size) if g.chance(0.3) and len(size) == 2 else f"{_dense(g, size, dt)}.to_sparse_csr()"
    sd = s.sparse_dim()
    return _coo(g, dt, size, sd)[0] if g.chance(0.4) else f"{_dense(g, size, dt)}.to_sparse({sd})"


def _step(g, env, e, s, grad):
    """One op on the sparse expression e (s: its value in torch): (expression, whether it is a product of uncoalesced
    operands, whose representation is torch's own: explicit zeros, order, coalesced flag (ember's is coalesced))."""
    r = g.r
    nd, coo = s.dim(), s.is_sparse
    sd, dd = s.sparse_dim(), s.dense_dim()

    def product():
        s2 = _like(g, s, "float32" if grad else None)
        v2 = _torch(env, s2)
        return f"({e}) * ({s2})", not s.is_coalesced() or (v2 is not None and not v2.is_coalesced())
    adds = coo or s.dtype != torch.int64  # torch's CSR sums are floating only (MKL)
    steps = [lambda: f"({e}) * 2", lambda: f"-({e})", lambda: f"({e}).clone()"]
    steps += [lambda: f"({e}) + ({_like(g, s)})"] if adds else []
    if coo:
        steps += [lambda: f"({e}).coalesce()", product]
    if coo and sd == 2 and dd == 0 or g.bad:
        steps.append(lambda: f"({e}).t()")
    if not grad:
        steps += [lambda: f"2 * ({e})", lambda: f"({e}) / 2", lambda: f"({e}).detach()", lambda: f"({e}).double()",
                  lambda: f"({e}).float()", lambda: f"({e}).to(m.float64)", lambda: f"({e}).{r.choice(UNARY)}()",
                  lambda: f"m.relu({e})", lambda: f"({e}).clone().mul_(2)", lambda: f"({e}).clone().zero_()",
                  lambda: f"({e}).to_sparse()"]
        steps += [lambda: f"({e}).clone().add_({_like(g, s)})"] if adds else []
        steps += [lambda: f"({e}) - ({_like(g, s)})"] if coo else []  # torch's CSR difference raises
    if not grad and coo:
        d = g.dim(s)
        size = s.shape[int(d) % nd] if nd and not g.bad else 2
        mask_shape = tuple(s.shape) if not g.bad else g.broadcast_shape(tuple(s.shape))
        steps += [lambda: f"({e}).pow({r.choice(['2', '3', '0.5', '-1', '0'] if s.is_floating_point() else ['2', '3'])})",
                  lambda: f"{_dense(g, mask_shape, str(s.dtype)[6:])}.sparse_mask(({e}).coalesce())",
                  lambda: f"({e}) // 2", lambda: f"({e}) * ({_dense(g, g.broadcast_shape(tuple(s.shape)), 'float32')})",
                  lambda: f"({e}).select({d}, {r.randint(-size, size - 1) if size else 0})",
                  lambda: f"({e})[{r.randint(0, max(s.shape[0] - 1, 0)) if nd and not g.bad else nd + 1}]",
                  lambda: f"({e}).index_select({d}, {g.index_tensor(size)})",
                  lambda: f"({e}).unsqueeze({r.randint(-nd - 1, nd) if not g.bad else nd + 2})",
                  lambda: f"({e}).sum({g.dim(s)})", lambda: f"({e}).sum({g.dim(s)}, keepdim=True)"]
        if sd >= 2 or g.bad:
            a, b = r.sample(range(max(sd, 2)), 2)
            steps.append(lambda: f"({e}).transpose({a}, {b if not g.bad else nd})")
        if nd == 2 and (sd == 2 or g.bad):
            steps.append(lambda: f"({e}).to_sparse_csr()")
    res = r.choice(steps)()
    return res if isinstance(res, tuple) else (res, False)


def _matrices(g, s, dt):
    """Dense operands for products with the 2-d s: (B for s @ B, A for A @ s, C for addmm); B wrong when bad."""
    r = g.r
    n, k = (tuple(s.shape) + (1, 1))[:2]
    p = r.randint(0, 3)
    return _dense(g, (k + g.bad, p), dt), _dense(g, (p, n + g.bad), dt), _dense(g, r.choice([(n, p), (p,)]), dt)


def _read(g, e, s, quirky, grad):
    """A read-out of the sparse expression e as a dense or plain value: (op, expression). Of torch's product of
    uncoalesced operands (quirky: explicit zeros, even after coalesce) only the dense value is compared."""
    r = g.r
    dt, nd, csr = str(s.dtype)[6:], s.dim(), s.is_sparse_csr
    reads = [("sparse-dense", f"({e}).to_dense()")] * 3 + ([] if csr else [("sparse-sum", f"m.sparse.sum({e})")])
    if (nd == 2 or g.bad) and not (csr and dt == "int64"):  # torch's CSR products are floating only (MKL)
        b, a, c = _matrices(g, s, dt)
        reads += [("sparse-mm", f"({e}) @ {b}"), ("sparse-mm", f"m.sparse.mm({e}, {b})")]
        if not grad:
            reads += [("sparse-mm", f"m.mm({a}, {e})"), ("sparse-mm", f"m.mm({e}, {b})"),
                      ("sparse-mm", f"m.addmm({c}, {e}, {b})")]
    if grad:
        return r.choice(reads)
    d = _dense(g, g.broadcast_shape(tuple(s.shape)) if g.bad else tuple(s.shape), dt)
    reads += [("sparse-sum", f"({e}).sum()"), ("sparse-add", f"{d} + ({e})"),
              ("sparse-add", f"m.add({d}, {e}, alpha=2)"), ("sparse-add", f"{d}.clone().add_({e})")]
    if csr:  # torch's sparse.sum and dense - CSR raise
        reads += [("sparse-indices", f"({e}).crow_indices()"), ("sparse-indices", f"({e}).col_indices()"),
                  ("sparse-values", f"({e}).values()"), ("sparse-nnz", f"({e})._nnz()"),
                  ("sparse-repr", f"[ord(c) for c in repr({e})]")]
        return r.choice(reads)
    reads += [("sparse-sum", f"m.sparse.sum({e}, {g.dims(s)})"), ("sparse-add", f"{d} - ({e})")]
    if not quirky:  # torch's indices may be a view of a larger buffer: compared contiguous
        reads += [("sparse-indices", f"({e}).coalesce()._indices().contiguous()"),
                  ("sparse-values", f"({e}).coalesce()._values()"), ("sparse-nnz", f"({e}).coalesce()._nnz()"),
                  ("sparse-repr", f"[ord(c) for c in repr(({e}).coalesce())]"),
                  ("sparse-indices", f"({e})._indices().contiguous()"), ("sparse-values", f"({e})._values()"),
                  ("sparse-nnz", f"({e})._nnz()"), ("sparse-coalesced", f"({e}).is_coalesced()")]
    return r.choice(reads)


def gen_sparse(g):
    r = g.r
    grad = g.chance(0.2)
    env = dict(g.ns)
    if grad:
        e, vals = _coo(g, g.dtype(["float32", "float64"]), grad=True)
        env["_v"] = _torch(env, vals)
    else:
        e = _source(g)
    if r.random() < 0.15 and not grad:
        return "sparse-refused", r.choice(REFUSED + [f"({{0}}) + {_dense(g, g.shape(), 'float32')}"]).format(e)
    quirky = False
    for _ in range(r.randint(0, 2)):
        s = _torch(env, e)
        if s is None or not (s.is_sparse or s.is_sparse_csr):
            break
        e, q = _step(g, env, e, s, grad)
        quirky = quirky or q
    s = _torch(env, e)
    if s is None or not (s.is_sparse or s.is_sparse_csr):
        op, read = "sparse-dense", f"({e}).to_dense()" if s is None else e  # dense where ember answers
    else:
        op, read = _read(g, e, s, quirky, grad)
        y = _torch(env, read)  # a sparse result (or ember's answer where torch raises) is compared dense
        sparse = y is None and op not in ("sparse-nnz", "sparse-coalesced", "sparse-repr")
        read += ".to_dense()" if sparse or getattr(y, "layout", None) in (torch.sparse_coo, torch.sparse_csr) else ""
    if grad:
        return "sparse.grad", f"_v = {vals}; _y = {read}; _y.float().sum().backward(); {{out}} = _v.grad"
    return op, read


def gen_sparse_embedding(g):
    """The sparse gradient of an embedding table (or bag) looked up by literal indices (padding_idx, a repeated row,
    an index out of range when bad), read dense with its index order, or after an optimizer step on it."""
    r = g.r
    rows, dim = r.randint(1, 5), r.randint(1, 3)
    n = r.randint(0, 6)
    idx = [r.randrange(rows) for _ in range(n)]
    if g.bad and idx:
        idx[r.randrange(n)] = r.choice([rows, -1])
    dt = g.dtype(["float32", "float64"])
    w = f"_w = m.tensor({g.literal((rows, dim), dt)}, dtype=m.{dt}, requires_grad=True)"
    pad = f", padding_idx={r.randint(-rows, rows - 1)}" if g.chance(0.3) else ""
    index = f"m.tensor({idx}, dtype=m.{r.choice(['int64', 'int32'])})"
    if g.chance(0.3) and n:
        mode = r.choice(["sum", "mean", "max" if g.bad else "sum"])
        look = f"m.nn.functional.embedding_bag({index}, _w, m.tensor([0, {n // 2}]), mode='{mode}', sparse=True{pad})"
    else:
        look = f"m.nn.functional.embedding({index}, _w, sparse=True{pad}" + \
               (", scale_grad_by_freq=True)" if g.bad and g.chance(0.3) else ")")
    backward = f"({look} * m.arange(1.0, {look}.numel() + 1, dtype=m.{dt}).view({look}.shape)).sum().backward()"
    if g.chance(0.4):
        opt = r.choice(["m.optim.SGD([_w], lr=0.1, momentum=0.9)", "m.optim.Adagrad([_w], lr=0.1)",
                        "m.optim.SparseAdam([_w], lr=0.1)", "m.optim.Adam([_w], lr=0.1)"])
        return "sparse.embedding", f"{w}; _o = {opt}; {backward}; _o.step(); {backward}; _o.step(); {{out}} = _w.detach()"
    read = r.choice(["_w.grad.to_dense()", "_w.grad._indices()", "_w.grad._values()", "_w.grad.coalesce()._values()"])
    return "sparse.embedding", f"{w}; {backward}; {{out}} = {read}"


SPARSE_OPS = [("sparse", gen_sparse, 4), ("sparse", gen_sparse_embedding, 1)]  # (family, generator, weight)
