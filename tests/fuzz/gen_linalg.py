"""Matrix factorizations for the differential tester: linalg.inv/det/slogdet/solve/solve_triangular/cholesky/qr/
eigvalsh/matrix_power/pinv and torch's inverse/det/logdet, on random batches and layouts of well-conditioned
float32/float64 matrices (fresh values in [-4, 4] plus 20 on the diagonal, so no two LAPACKs may round their way to
different answers); invalid programs get integer dtypes, non-square or mismatched shapes."""
LINALG_FLOATS = ["float32", "float64", "float64"]
NAMES = ["inv", "det", "slogdet", "solve", "solve_triangular", "cholesky", "qr", "eigvalsh", "matrix_power", "pinv",
         "inverse", "logdet"]


def _fresh(g, shape, dt):
    """A creation expression without NaN/inf values (a factorization of them differs from LAPACK to LAPACK)."""
    specials, g.specials = g.specials, False
    try:
        return g.creation(tuple(shape), dt, grad=dt.startswith("float") and g.chance(0.3))
    finally:
        g.specials = specials


def gen_linalg(g):
    r = g.r
    op = r.choice(NAMES)
    dt = g.dtype(LINALG_FLOATS) if not g.bad or r.random() < 0.5 else g.dtype(["int64", "int32", "float16"])
    batch = tuple(r.randint(0, 3) for _ in range(r.choice([0, 0, 1, 2])))
    n = r.randint(0, 4)
    cols = n + 1 if g.bad and r.random() < 0.5 else n
    a = f"({_fresh(g, batch + (n, cols), dt)} + 20 * m.eye({n}, {cols}, dtype=m.{dt}))"
    k = r.randint(0, 3)
    rows = n + 1 if g.bad else n
    if op in ("inv", "det", "eigvalsh"):
        inner = f"{a} + {a}.mT" if op == "eigvalsh" else a
        return op, f"m.linalg.{op}({inner})"
    if op == "inverse":
        return op, f"m.inverse({a})"
    if op == "logdet":
        return op, f"m.logdet({a} @ {a}.mT)"
    if op == "slogdet":
        return op, f"m.linalg.slogdet({a})[{r.randint(0, 1)}]"
    if op == "solve":
        vector = r.random() < 0.3
        b = _fresh(g, (rows,) if vector else batch[r.randint(0, len(batch)):] + (rows, k), dt)
        return op, f"m.linalg.solve({a}, {b})"
    if op == "solve_triangular":
        left = r.random() < 0.7
        b = _fresh(g, batch + ((rows, k) if left else (k, rows)), dt)
        return op, (f"m.linalg.solve_triangular({a}, {b}, upper={r.choice([True, False])}, left={left}, "
                    f"unitriangular={r.choice([True, False])})")
    if op == "cholesky":
        return op, f"m.linalg.cholesky({a} @ {a}.mT, upper={r.choice([True, False])})"
    if op == "qr":
        mode = r.choice(["reduced", "complete", "r"])
        return op, f"m.linalg.qr({a}[..., :{r.randint(0, n)}], mode='{mode}')[{r.randint(0, 1)}]"
    if op == "matrix_power":
        return op, f"m.linalg.matrix_power({a}, {r.randint(-2, 3)})"
    return op, f"m.linalg.pinv({a}[..., :{r.randint(0, n)}])"


LINALG_OPS = [("linalg", gen_linalg, 3)]  # (family, generator, weight), appended to gen.OPS
