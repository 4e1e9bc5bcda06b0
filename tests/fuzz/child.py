"""Child process: runs fuzz programs (lists of statements) against one module (ember or torch).

Protocol: one pickled request list on stdin; one pickled frame per program on the original stdout
("done", index, snapshots). Anything the libraries print goes to stderr. Run as a script:
    python child.py ember|torch
"""
import math
import os
import pickle
import re
import resource
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import reference_isa  # noqa: E402,F401 - before torch

MAX_VALUES = 1 << 20  # larger results are compared by metadata only
_RAW_VIEW = {"bfloat16": "int16", "float8_e4m3fn": "uint8", "float8_e5m2": "uint8"}


def limit_memory(gib=4):
    """Huge allocations fail quickly instead of swapping (both libraries must raise, not crash). Not under
    the sanitizer (scripts/sanitize.sh): ASan maps terabytes of shadow memory and bounds allocations itself."""
    if os.environ.get("EMBER_SANITIZED"):
        return
    lim = gib << 30
    resource.setrlimit(resource.RLIMIT_AS, (lim, lim))


def is_tensor(m, x):
    return isinstance(x, m.Tensor)


def tensor_bytes(m, t):
    name = str(t.dtype).replace("torch.", "")
    t = t.detach()
    if getattr(t, "_is_zerotensor", lambda: False)():  # torch's lazy zeros (sgn's real gradient) refuse .numpy()
        t = t.new_zeros(t.shape)
    if name in _RAW_VIEW:
        t = t.contiguous().view(getattr(m, _RAW_VIEW[name]))
    return t.contiguous().numpy().tobytes()


def storage_ptr(t):
    try:
        if t.numel() == 0:
            return None
        return t.untyped_storage().data_ptr()
    except Exception:  # noqa: BLE001 - a tensor without storage has no alias information
        return None


def snapshot(m, x, ptrs, with_values=True):
    """A picklable description of x: type, dtype, shape, strides, values, aliasing with named tensors."""
    if is_tensor(m, x):
        p = storage_ptr(x)
        aliases = sorted(k for k, v in ptrs.items() if p is not None and v == p)
        grad_fn = x.grad_fn.name() if x.grad_fn is not None else None
        raw = tensor_bytes(m, x) if with_values and x.numel() <= MAX_VALUES else None
        return ("T", str(x.dtype).replace("torch.", ""), tuple(x.shape), tuple(x.stride()), x.storage_offset(),
                bool(x.requires_grad), raw, aliases, grad_fn)
    if isinstance(x, bool):
        return ("S", "bool", x)
    if isinstance(x, int):
        return ("S", "int", x)
    if isinstance(x, float):
        return ("S", "float", x)
    if x is None:
        return ("N",)
    if isinstance(x, m.dtype):
        return ("D", str(x).replace("torch.", ""))
    if isinstance(x, (tuple, list)):
        return ("L", [snapshot(m, y, ptrs, with_values) for y in x])
    return ("O", type(x).__name__)


SUM_LIKE = ("sum", "mean", "var_mean", "std_mean")
_SUM_INPUT = re.compile(r"^(v\d+) = (?:m\.(?:sum|mean|var_mean|std_mean)\((v\d+)\b|(v\d+)\.(?:sum|mean)\()")


def sum_condition(m, st, ns):
    """For `vK = sum/mean(vJ, ...)`: (terms per output, the same reduction of |vJ| in float64 per output), which
    bounds the rounding error of any summation order (compare.py); for var_mean/std_mean the bound of their mean,
    with max|vJ| for every output; None for other statements."""
    mt = _SUM_INPUT.match(st["src"]) if st["op"] in SUM_LIKE else None
    if not mt:
        return None
    name = mt.group(2) or mt.group(3)
    x, out = ns[name], ns[mt.group(1)]
    if st["op"] in ("var_mean", "std_mean"):
        mean = out[1]
        bound = float(x.detach().double().abs().max()) if x.numel() else 0.0
        return x.numel() // max(mean.numel(), 1), [bound] * mean.numel()
    rhs = re.sub(r",\s*dtype=m\.\w+", "", st["src"].split("=", 1)[1].replace(name, f"{name}.double().abs()", 1))
    try:
        scale = eval(rhs, dict(ns, **{name: x.detach()}))  # noqa: S307 - the fuzz program is ours
        per = scale.reshape(-1).tolist()
    except Exception:  # noqa: BLE001 - no bound: the ordinary tolerance applies
        return None
    return x.numel() // max(out.numel(), 1), per


def run_program(m, statements):
    """Runs the statements in order; a snapshot per statement; stops at the first exception.
    At the end (no exception) the tensors named in the program are snapshotted again (writes through views)."""
    ns = {"m": m, "math": math}
    ptrs, snaps = {}, []
    for st in statements:
        try:
            exec(st["src"], ns)  # noqa: S102 - the fuzz program is ours
            val = ns.get(st["out"]) if st["out"] else None
            snap = snapshot(m, val, ptrs, not st.get("novalues"))
            cond = sum_condition(m, st, ns) if st["op"] in SUM_LIKE else None
            if cond and snap[0] == "T" and snap[6] is not None:
                snap += (cond,)
            elif cond and snap[0] == "L" and len(snap[1]) == 2 and snap[1][1][0] == "T":  # (var, mean)
                snap = ("L", [snap[1][0], snap[1][1] + (cond,)])
            snaps.append(snap)
        except Exception as e:  # noqa: BLE001 - exception types are compared
            snaps.append(("E", type(e).__name__, str(e)[:300]))
            return snaps
        if st["out"] and is_tensor(m, val):
            ptrs[st["out"]] = storage_ptr(val)
    final, blind = [], {st["out"] for st in statements if st.get("novalues")}
    for name in sorted(ptrs):
        try:
            final.append((name, snapshot(m, ns[name], {}, name not in blind)))
        except Exception as e:  # noqa: BLE001
            final.append((name, ("E", type(e).__name__, str(e)[:300])))
    snaps.append(("F", final))
    return snaps


def warm_up(m):
    """Pays one-time costs before any program's clock starts: torch's first optimizer step imports its compiler
    stack (~2 s, a "hang" on a loaded machine), its first module call a few more modules."""
    p = m.nn.Parameter(m.zeros(2))
    p.grad = m.ones(2)
    m.optim.Adam([p]).step()
    m.nn.Linear(2, 2)(m.zeros(1, 2))


def serve(modname, handler):
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    limit_memory()
    requests = pickle.load(sys.stdin.buffer)
    m = __import__(modname)
    warm_up(m)
    _send(out, ("ready", None, None))
    for index, req in requests:
        _send(out, ("done", index, handler(m, req)))


def _send(out, frame):
    data = pickle.dumps(frame)
    out.write(struct.pack("<Q", len(data)) + data)
    out.flush()


def handle(m, req):
    kind, payload = req
    if kind == "run":
        return run_program(m, payload)
    if kind == "ref64":  # torch child: the program in float64 (compare.float64_program), float64 by default
        from compare import float64_program  # noqa: PLC0415
        m.set_default_dtype(m.float64)
        try:
            return run_program(m, float64_program(payload))
        finally:
            m.set_default_dtype(m.float32)
    if kind == "gen":  # torch child: generate the program with the seed, then run it
        from gen import generate  # noqa: PLC0415 - only the torch child generates
        prog = generate(payload)
        return prog, run_program(m, prog)
    raise ValueError(kind)


if __name__ == "__main__":
    serve(sys.argv[1], handle)
