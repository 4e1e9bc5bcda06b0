"""Compares the snapshots of one program run on ember and on torch (see child.snapshot)."""
import math
import re

import numpy as np

# (rtol, atol) by dtype; integer and bool values must be equal.
TOLERANCE = {"float16": (1e-2, 1e-3), "bfloat16": (5e-2, 1e-2), "float32": (1e-4, 1e-5), "float64": (1e-7, 1e-9)}
_NP = {"bool": np.bool_, "uint8": np.uint8, "int8": np.int8, "int16": np.int16, "int32": np.int32,
       "int64": np.int64, "float16": np.float16, "float32": np.float32, "float64": np.float64}

# Failure kinds. WRONG (with crash and hang) fails a run; the others are counted and listed.
WRONG = ("value", "dtype", "shape", "stride", "alias", "requires_grad", "type")
FAILING = ("generator", "crash", "hang") + WRONG
# missing-error: torch raises, ember answers (lenient: torch's error is a TypeError about an argument's type);
# spurious-error: ember raises, torch answers; exception-type: both raise, different types.
RAISING = ("missing-error", "spurious-error", "exception-type", "lenient")
# torch-rounding: a floating value differs, but ember's is at least as close to the program's float64 result as
# torch's is (rounding_only): torch's own rounding or algorithm, counted apart.
ROUNDING = "torch-rounding"
LISTED = RAISING + ("grad_fn", "torch-side", ROUNDING)
# An ill-conditioned sum that differs only within its rounding bound (sum_slack): the rest of the program is skipped.
DIVERGED = "diverged"
# Ops whose result can jump for a change of its inputs within rounding (a step, a period reduced from a large
# argument, a comparison): applied to values that already differ from torch's in their last bits, a different
# result is no bug, so the rest of the program is skipped as for a diverged sum.
ILL_CONDITIONED = {"frac", "fmod", "remainder", "sin", "cos", "tan", "floor", "ceil", "round", "trunc", "floor_divide",
                   "sign", "sgn", "eq", "ne", "lt", "le", "gt", "ge", "isclose", "to",  # to: an integer cast truncates
                   "argmax", "argmin", "argsort"}  # the index of one of values equal within rounding
_VARIABLE = re.compile(r"\bv\d+\b")


def values(snap):
    _, dt, shape, *_ = snap
    raw = snap[6]
    if dt == "bfloat16":
        bits = np.frombuffer(raw, np.uint16).astype(np.uint32) << 16
        return bits.view(np.float32).reshape(shape)
    return np.frombuffer(raw, _NP[dt]).reshape(shape)


def sum_slack(t):
    """Sums and means are ill-conditioned where terms cancel (+-2**63 in a bfloat16 sum): any two summation orders
    may differ by up to 2 (n - 1) u sum|x| per output (n terms, u the unit roundoff of the accumulator: float32 for
    every dtype but float64, as torch's). child.sum_condition gives n and sum|x| (mean: mean|x|); 0 elsewhere."""
    if len(t) < 10 or t[9] is None:
        return 0.0
    n, scale = t[9]
    u = 2.0 ** -53 if t[1] == "float64" else 2.0 ** -24
    return 2 * max(n - 1, 0) * u * np.asarray(scale, np.float64).reshape(t[2])


def _close_mask(a, b, dt, floor=(0.0, 0.0), slack=0.0):
    """Elementwise: a and b (floating dtype dt) equal within tolerance."""
    rtol, atol = max(TOLERANCE[dt][0], floor[0]), max(TOLERANCE[dt][1], floor[1])
    a, b = a.astype(np.float64), b.astype(np.float64)
    both_nan = np.isnan(a) & np.isnan(b)
    with np.errstate(invalid="ignore"):
        return (a == b) | both_nan | (np.abs(a - b) <= atol + slack + rtol * np.abs(b))


def _close(a, b, dt, floor=(0.0, 0.0), slack=0.0):
    if dt not in TOLERANCE:
        return np.array_equal(a, b)
    return bool(_close_mask(a, b, dt, floor, slack).all())


def loosest(snaps, program=None):
    """The loosest tolerance of the dtypes in a program's snapshots and statements: a float64 result computed from
    float32 or bfloat16 values (out=, dtype=, promotion, a tensor made inside the statement) is as exact as those
    values; integers compute in float32."""
    tols = [TOLERANCE.get(s[1], TOLERANCE["float32"]) for s in _tensors(snaps)]
    named = {d for st in program or () for d in re.findall(r"\bm\.(\w+)\b", st["src"]) if d in _NP or d in TOLERANCE}
    return max(tols + [TOLERANCE.get(d, TOLERANCE["float32"]) for d in named], default=(0.0, 0.0))


def _tensors(snaps):
    for s in snaps:
        if s[0] == "T":
            yield s
        elif s[0] in ("L", "F"):
            yield from _tensors(x[1] if s[0] == "F" else x for x in s[1])


def diff(e, t, path="", floor=(0.0, 0.0)):
    """(kind, message) for the first difference between an ember and a torch snapshot, or None."""
    if e[0] != t[0]:
        return "type", f"{path}ember gives {e[0]!r} kind, torch {t[0]!r}: {str(e)[:200]} vs {str(t)[:200]}"
    k = e[0]
    if k == "T":
        if e[1] != t[1]:
            return "dtype", f"{path}dtype {e[1]} vs torch {t[1]}"
        if e[2] != t[2]:
            return "shape", f"{path}shape {e[2]} vs torch {t[2]}"
        diverged = False
        if e[6] is not None and t[6] is not None and not _close(values(e), values(t), e[1], floor):
            if not _close(values(e), values(t), e[1], floor, sum_slack(t)):
                return "value", f"{path}values\n  ember: {values(e).tolist()}\n  torch: {values(t).tolist()}"
            diverged = True
        if math.prod(e[2]) > 1 and any(a != b for a, b, s in zip(e[3], t[3], e[2]) if s > 1):
            return "stride", f"{path}strides {e[3]} vs torch {t[3]} (shape {e[2]})"
        if e[5] != t[5]:
            return "requires_grad", f"{path}requires_grad {e[5]} vs torch {t[5]}"
        if e[7] != t[7]:
            return "alias", f"{path}shares storage with {e[7]} vs torch {t[7]}"
        if (e[8] is None) != (t[8] is None) or (e[8] and e[8] != t[8]):
            return "grad_fn", f"{path}grad_fn {e[8]} vs torch {t[8]}"
        return (DIVERGED, "") if diverged else None
    if k == "S":
        if e[1] != t[1]:
            return "type", f"{path}Python {e[1]} vs torch {t[1]}"
        a, b = e[2], t[2]
        if e[1] == "float":
            tol = max(1e-5, floor[1]) + max(1e-4, floor[0]) * abs(b)
            ok = (a == b) or (math.isnan(a) and math.isnan(b)) or abs(a - b) <= tol
        else:
            ok = a == b
        return None if ok else ("value", f"{path}{a!r} vs torch {b!r}")
    if k == "D":
        return None if e[1] == t[1] else ("dtype", f"{path}{e[1]} vs torch {t[1]}")
    if k in ("L", "F"):
        if len(e[1]) != len(t[1]):
            return "shape", f"{path}{len(e[1])} items vs torch {len(t[1])}"
        for i, (a, b) in enumerate(zip(e[1], t[1])):
            if k == "F":
                d = diff(a[1], b[1], f"{path}final {a[0]}: ", floor)
            else:
                d = diff(a, b, f"{path}[{i}] ", floor)
            if d:
                return d
        return None
    if k == "O":
        return None if e[1].lower() == t[1].lower() else ("type", f"{path}{e[1]} vs {t[1]}")
    return None


def _near_tie(e, t, floor):
    """min/max(dim) whose values agree but whose indices differ: torch's own kernels round one value differently by
    position (vector body or scalar tail, e.g. sinh), so a tie within rounding is a valid choice either way."""
    if e[0] != "L" or t[0] != "L" or len(e[1]) != 2 or len(t[1]) != 2 or any(s[0] != "T" for s in e[1] + t[1]):
        return False
    (ev, ei), (tv, ti) = e[1], t[1]
    if diff(ev, tv, floor=floor) or ei[1:3] != ti[1:3] or ei[6] is None or ti[6] is None or ei[6] == ti[6]:
        return False
    return True


def _bitwise_equal(e, t):
    if e[0] == "T" and t[0] == "T":
        return e[1:3] == t[1:3] and e[6] == t[6]
    if e[0] in ("L", "F") and t[0] == e[0] and len(e[1]) == len(t[1]):
        pairs = zip(e[1], t[1]) if e[0] == "L" else ((a[1], b[1]) for a, b in zip(e[1], t[1]))
        return all(_bitwise_equal(a, b) for a, b in pairs)
    return e == t


def compare(e_snaps, t_snaps, program=None):
    """(kind, statement index, message) of the first difference, or None. Exceptions end both runs."""
    floor = loosest(t_snaps, program)
    inexact = set()  # variables whose values differ from torch's within tolerance, and those written with them
    # ... of which some elements agree only within the absolute tolerance (a cancelled sum's rounding noise, e.g. a
    # gradient that is 0 in exact arithmetic): any later op (a log, a division) may amplify that noise without bound
    noisy = set()
    for i, (e, t) in enumerate(zip(e_snaps, t_snaps)):
        statement = program[i] if program and i < len(program) else None
        names = set(_VARIABLE.findall(statement["src"])) if statement else set()
        if e[0] == "E" or t[0] == "E":
            if e[0] == "E" and t[0] == "E":
                if e[1] == t[1]:
                    return None
                return "exception-type", i, f"ember {e[1]}: {e[2]}\n  torch {t[1]}: {t[2]}"
            if e[0] == "E":
                return "spurious-error", i, f"ember raises {e[1]}: {e[2]}"
            kind = "lenient" if t[1] == "TypeError" else "missing-error"
            return kind, i, f"torch raises {t[1]}: {t[2]}; ember gives {str(e)[:300]}"
        if program and i < len(program) and program[i]["op"] in ("min", "max") and _near_tie(e, t, floor):
            return None  # indices of values equal within rounding: later values may depend on the choice
        d = diff(e, t, floor=floor)
        if d and d[0] == DIVERGED:  # later values may depend on the summation order: not comparable
            return None
        if d and d[0] == "value" and statement and statement["op"] in ILL_CONDITIONED and names & inexact:
            return None
        if d and d[0] == "value" and names & noisy:
            return None
        if d:
            return d[0], i, d[1]
        if not _bitwise_equal(e, t):
            inexact |= names
            if not _relatively_close(e, t, floor):
                noisy |= names
    if len(e_snaps) != len(t_snaps):
        return "type", min(len(e_snaps), len(t_snaps)), "different number of statements ran"
    return None


def _relatively_close(e, t, floor):
    """Whether every floating element of snapshots e and t agrees within the relative tolerance alone."""
    if e[0] in ("L", "F") and t[0] == e[0] and len(e[1]) == len(t[1]):
        pairs = zip(e[1], t[1]) if e[0] == "L" else ((a[1], b[1]) for a, b in zip(e[1], t[1]))
        return all(_relatively_close(a, b, floor) for a, b in pairs)
    if e[0] != "T" or t[0] != "T" or e[1] not in TOLERANCE or e[6] is None or t[6] is None or e[2] != t[2]:
        return True
    a, b = values(e).astype(np.float64), values(t).astype(np.float64)
    rtol = max(TOLERANCE[e[1]][0], floor[0])
    with np.errstate(invalid="ignore"):
        return bool(((a == b) | (np.isnan(a) & np.isnan(b)) | (np.abs(a - b) <= rtol * np.abs(b))).all())


_LOW_FLOATS = re.compile(r"\bm\.(?:float16|bfloat16|float32|half|float)\b")
_LOW_CASTS = re.compile(r"\.(?:half|bfloat16|float)\(\)")


def float64_program(program):
    """The program with every floating dtype it names made float64 (child.py runs it with float64 as the default
    dtype): the reference rounding_only measures both libraries against."""
    return [dict(st, src=_LOW_CASTS.sub(".double()", _LOW_FLOATS.sub("m.float64", st["src"]))) for st in program]


def _error(x, r):
    """|x - r| elementwise, 0 where both are the same nan or inf, inf where only one of them is non-finite."""
    with np.errstate(invalid="ignore", over="ignore"):
        err = np.abs(x - r)
    same = (x == r) | (np.isnan(x) & np.isnan(r))
    return np.where(same, 0.0, np.where(np.isfinite(x) & np.isfinite(r), err, np.inf))


def _rounding_only_snap(e, t, r, normwise=False):
    if e[0] != t[0]:
        return False
    if e[0] in ("L", "F"):
        items = zip(e[1], t[1], r[1]) if r[0] == e[0] and len(r[1]) == len(e[1]) == len(t[1]) else None
        if items is None:
            return diff(e, t) is None
        unwrap = (lambda s: s[1]) if e[0] == "F" else (lambda s: s)
        return all(_rounding_only_snap(unwrap(a), unwrap(b), unwrap(c), normwise) for a, b, c in items)
    if e[0] == "S" and e[1] == t[1] == "float" and r[0] == "S" and r[1] == "float":
        return diff(e, t) is None or _error(np.float64(e[2]), r[2]) <= _error(np.float64(t[2]), r[2])
    if e[0] != "T" or e[6] is None or t[6] is None or e[1:3] != t[1:3]:
        return diff(e, t) is None
    if diff(e[:6] + (None,) + e[7:], t[:6] + (None,) + t[7:]) is not None:  # all but the values must agree
        return False
    if e[1] not in TOLERANCE:  # an integer or bool result of inexact values: exactly the reference's, or wrong
        return e[6] == t[6] or (r[0] == "T" and r[1:3] == e[1:3] and r[6] is not None and r[6] == e[6])
    a, b = values(e).astype(np.float64), values(t).astype(np.float64)
    close = _close_mask(a, b, e[1])
    if close.all():
        return True
    if r[0] != "T" or r[2] != e[2] or r[6] is None or r[1] not in TOLERANCE:
        return False
    ref = values(r).astype(np.float64)
    err_e, err_t = _error(a, ref), _error(b, ref)
    if (close | (err_e <= err_t)).all():
        return True
    # a gradient is a sum over the batch: where it cancels, every element carries the rounding of its largest terms,
    # so ember's worst error is judged against torch's worst (within 2x), non-finite places matching elementwise
    finite = np.isfinite(err_e)
    return normwise and bool((finite | ~np.isfinite(err_t)).all()) and \
        err_e[finite].max(initial=0.0) <= 2 * err_t[np.isfinite(err_t)].max(initial=0.0)


def rounding_only(e_snaps, t_snaps, r_snaps, index, program=None):
    """Whether statement `index`'s values (len(program): the final state) differ from torch's only where ember's are
    at least as close as torch's to the float64 reference's (r_snaps: float64_program's snapshots in torch), a nan
    or inf counting as exact only where the reference has it too; a gradient (a backward statement of `program`)
    by its worst element instead."""
    if r_snaps is None or index >= len(r_snaps) or index >= min(len(e_snaps), len(t_snaps)):
        return False
    normwise = bool(program) and index < len(program) and _is_gradient(program[index])
    return _rounding_only_snap(e_snaps[index], t_snaps[index], r_snaps[index], normwise)


def _is_gradient(statement):
    return statement["op"] == "backward" or statement["op"].endswith(".grad")


def _lanes_differ_only(e, t, lane):
    """Whether ember's snapshot e differs from torch's t only where ember's value passes `lane` (its vector rule)."""
    if e[0] in ("L", "F") and t[0] == e[0] and len(e[1]) == len(t[1]):
        pairs = zip(e[1], t[1]) if e[0] == "L" else ((a[1], b[1]) for a, b in zip(e[1], t[1]))
        return all(_lanes_differ_only(a, b, lane) for a, b in pairs)
    if e[0] != "T" or t[0] != "T" or e[1] not in TOLERANCE or e[1:3] != t[1:3] or e[6] is None or t[6] is None:
        return diff(e, t) is None
    a, b = values(e).astype(np.float64), values(t).astype(np.float64)
    return bool((_close_mask(a, b, e[1]) | lane(a)).all())


# torch kernels whose NaN handling depends on the CPU's vector width; ember takes the vector body's rule everywhere:
# - elu/celu/selu backward sends a NaN input down the negative branch (a NaN gradient) in its vector body but the
#   positive one (the gradient times scale) in its scalar tail and for float16/bfloat16 (only backward statements);
# - hardtanh/relu6 backward gives 0 at a NaN input in its vector body (16 float32 or 8 float64 elements a step)
#   but passes the gradient in its scalar tail (only backward statements);
# - the CPU flash attention kernel's row max propagates a NaN score in its vector body but skips it in the scalar tail
#   (std::max), so a row of NaN and -inf scores there is a fully masked row (0) instead of NaN.
_NAN_LANES = ((re.compile(r"\b(?:elu|celu|selu)\("), "elu", True, np.isnan),
              (re.compile(r"\b(?:hardtanh|relu6|Hardtanh|ReLU6)\("), "hardtanh", True, lambda a: a == 0),
              (re.compile(r"\b(?:scaled_dot_product_attention|MultiheadAttention|Transformer\w*)\("), "attention", False,
               np.isnan))


def nan_lanes(e_snaps, t_snaps, program, index):
    """The name of the torch kernel whose vector-width NaN lanes explain statement `index`'s difference (ember's
    vector-rule value where torch has another, all else within tolerance), or None."""
    if not program or index >= len(program):
        return None
    for pattern, name, backward_only, lane in _NAN_LANES:
        if backward_only and program[index]["op"] != "backward" and not program[index]["op"].endswith(".grad"):
            continue
        if any(pattern.search(st["src"]) for st in program[:index + 1]) and \
                _lanes_differ_only(e_snaps[index], t_snaps[index], lane):
            return name
    return None
