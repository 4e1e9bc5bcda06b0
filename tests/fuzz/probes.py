"""The bad-input probe set: generated bad calls of the public functions and methods, each run (in child
processes) on ember and on torch; crashes, hangs and differences in exception types are reported.

A probe is a one-statement program: SETUP, then `r = <call>`. The calls are templates crossed with bad values:
huge, negative and overflowing sizes, strides and offsets; out-of-range dims and indices; wrong types; ragged,
deep and self-containing lists; dtype limits; empty and 0-dim inputs.
"""
import itertools
import re
from concurrent.futures import ThreadPoolExecutor

import runner
from gen import AVAILABLE, AVAILABLE_METHODS

SETUP = ("m.manual_seed(0); x = m.arange(6.).reshape(2, 3); i = m.arange(6).reshape(2, 3); e = m.zeros(0, 3); "
         "s = m.tensor(2.5); b = m.tensor([True, False]); ")

SIZES = ["2**62", "2**63-1", "2**63", "2**64", "-1", "-2**63", "-2**63-1", "2**31", "(2**31, 2**31, 4)",
         "(2**40, 2**40, 4)", "(2**40, 2**40)", "(3, 2**62)", "(0, 2**62)", "(2**62, 0, 2**62)", "(2**32, 2**32)",
         "(-1, 2)", "(2, -5)", "(0, -1)", "1.5", "'3'", "None", "(2, None)", "[2, 'a']", "(2, 1.0)", "True",
         "(1,)*65", "(1,)*1000", "m.tensor(3)", "m.tensor([2, 3])", "m.tensor(2.0)", "(m.tensor(2), 3)", "object()",
         "()", "[]", "float('nan')", "float('inf')", "(2**62, 6)", "(6, 2**62)", "(2**61, 2**2)", "[[2, 3]]"]
SIZE_CALLS = ["m.zeros({})", "m.ones({})", "m.empty({})", "m.full({}, 1)", "m.full(({},), 1)", "m.rand({})",
              "m.randn({})", "m.randint(0, 5, {})", "m.randint(0, 5, ({},))", "x.new_zeros({})", "x.new_ones({})",
              "x.new_empty({})", "x.new_full({}, 2)", "x.view({})", "x.reshape({})", "x.expand({})",
              "m.zeros(2, 1).expand({})", "x.resize_({})", "m.eye({})", "m.eye(2, {})", "m.arange({})",
              "m.linspace(0, 1, {})", "m.randperm({})", "x.unflatten(1, {})", "m.empty({}).numel()",
              "m.empty_strided({}, (1,))", "m.zeros(({}, 2)).numel()",
              "i.new_full(({},), 7)", "m.zeros(1).expand({}).contiguous()", "m.full({}, 1.5).sum()"]

DIMS = ["2", "3", "-3", "-4", "2**31", "2**63-1", "-2**63", "2**63", "1.5", "'0'", "None", "(0, 0)", "(0, 5)",
        "[0, 1]", "m.tensor(0)", "True", "float('nan')", "()", "(-1, 1)", "(0, 2**62)"]
DIM_CALLS = ["x.sum({})", "x.mean({})", "x.prod({})", "x.amax({})", "x.max({})", "x.argmax({})", "x.softmax({})",
             "x.log_softmax({})", "x.cumsum({})", "x.cumprod({})", "x.std({})", "x.var({})", "x.logsumexp({})",
             "x.all({})", "x.any({})", "x.norm(dim={})", "x.count_nonzero({})", "x.select({}, 0)",
             "x.narrow({}, 0, 1)", "x.transpose({}, 0)", "x.squeeze({})", "x.unsqueeze({})", "x.flatten({})",
             "x.movedim({}, 0)", "x.diagonal(0, {}, 0)", "x.unbind({})", "x.split(1, {})", "x.chunk(2, {})",
             "m.cat([x, x], {})", "m.stack([x, x], {})", "x.unfold({}, 1, 1)", "x.index_select({}, m.tensor([0]))",
             "x.gather({}, m.zeros(2, 3, dtype=m.int64))", "x.permute({}, 1)", "s.sum({})", "e.sum({})",
             "e.max({})", "e.softmax({})", "s.softmax({})", "s.cumsum({})", "e.logsumexp({})", "e.argmax({})",
             "s.unsqueeze({})", "x.min({})", "x.var_mean({})", "m.std_mean(x, {})", "x.swapaxes(0, {})",
             "x.mean(dim={}, keepdim=True)", "x.sum(dim={}, dtype=m.int8)"]

INDICES = ["2", "-3", "3", "2**31", "2**63-1", "-2**63", "2**63", "1.5", "'a'", "None", "m.tensor([5])",
           "m.tensor([-7])", "m.tensor([2**40])", "m.tensor([0.5])", "[0, 1, 'a']", "[[0, 1], [0]]",
           "m.tensor([True])", "m.tensor([[True, False]])", "(0, 0, 0)", "slice(0, 2**63)", "slice(None, None, 0)",
           "slice(None, None, -1)", "slice(None, None, 2**63)", "(..., ...)", "object()",
           "m.zeros(2, 3, 4, dtype=m.bool)", "(m.tensor([0, 1]), m.tensor([0, 1, 0]))", "[]", "m.tensor([])",
           "m.tensor(1.0)", "(m.tensor([[0]]), [[0, 1, 2]])", "{0: 1}", "m.tensor([0, 1], dtype=m.int8)",
           "m.tensor([2**31], dtype=m.int64)", "m.tensor([-2**63])"]
INDEX_CALLS = ["x[{}]", "x[0, {}]", "x[:, {}]", "x[..., {}]", "s[{}]", "e[{}]", "x.select(0, {})",
               "x.narrow(0, {}, 1)", "x.narrow(0, 0, {})", "x.index_select(0, {})", "x.gather(1, {})",
               "x.index_put_(({},), m.tensor(1.))", "i[{}]", "b[{}]", "m.zeros(4, 2)[{}]"]
INDEX_WRITES = ["x[{}] = 1", "x[{}] = 'a'", "x[{}] = m.zeros(7)", "x[0, {}] = 2.5", "i[{}] = 2**40",
                "x[{}] = None", "s[{}] = 1"]

AS_SIZES = ["(3,)", "(2, 2)", "(2**62,)", "(-1,)", "(2**31, 2**31)"]
AS_STRIDES = ["(2**61,)", "(-1,)", "(2**63-1,)", "(1,)", "(0,)", "(2**62, 2**62)", "(1, 1)", "(-2**63,)"]
AS_OFFSETS = ["0", "-1", "2**63-1", "5"]
STRIDE_CALLS = ["m.arange(5.).as_strided({}, {}, {})", "m.empty_strided({}, {}).storage_offset() + {}",
                "x.as_strided({}, {}, {})[-1]"]
UNFOLD = ["-5", "0", "2**62", "2**63-1", "-1", "7", "1.5"]

DATA = ["[1, [2]]", "[[1, 2], [3]]", "[[1], 2]", "eval('[' * 100 + '1' + ']' * 100)",
        "eval('[' * 3000 + '1' + ']' * 3000)", "eval('[' * 64 + '1' + ']' * 64)",
        "(lambda l: (l.append(l), l)[1])([1])",
        "(lambda l: (l.append(l), l)[1])([])", "[m.zeros(1), m.zeros(10**6)]", "[m.zeros(2), m.zeros(3)]", "['a']",
        "[None]", "[1, 'a']", "[object()]", "[2**63]", "[-2**63-1]", "[2**64]", "[float('inf')]",
        "[float('nan')]", "[1e40]", "[[]]", "[[], []]", "[[], [1]]", "[m.tensor([1, 2]), [3, 4]]",
        "[[m.tensor(1)], [2]]", "'abc'", "None", "{1: 2}", "{1, 2}", "range(3)", "b'ab'", "[1j]", "1j",
        "[m.tensor([1., 2.], requires_grad=True)]", "[m.zeros(2, 2), m.zeros(2)]", "[[1, 2], (3, 4)]",
        "[True, 2, 3.5]", "[m.tensor(1), m.tensor([1])]", "[-1]", "[300]", "[-129]", "[[1, 2], [3, [4]]]"]
DATA_CALLS = ["m.tensor({})", "m.tensor({}, dtype=m.int8)", "m.tensor({}, dtype=m.uint8)",
              "m.tensor({}, dtype=m.int64)", "m.tensor({}, dtype=m.float16)", "m.tensor({}, dtype=m.bool)",
              "m.as_tensor({})"]

LIMITS = ["2**63", "-2**63-1", "2**63-1", "2**64", "256", "-129", "1e300", "float('inf')", "float('nan')",
          "70000"]
DTYPES = ["bool", "uint8", "int8", "int32", "int64", "float16", "float32"]
LIMIT_CALLS = ["m.full((2,), {v}, dtype=m.{d})", "m.zeros(2, dtype=m.{d}).fill_({v})",
               "m.tensor([1], dtype=m.{d}) + {v}", "m.tensor([1], dtype=m.{d}) * {v}",
               "m.tensor([2], dtype=m.{d}) // {v}", "m.tensor([2], dtype=m.{d}) % {v}",
               "m.tensor([2], dtype=m.{d}).clamp({v})", "m.where(m.tensor([True]), m.tensor([1], dtype=m.{d}), {v})",
               "m.tensor([2], dtype=m.{d}) ** {v}", "m.full_like(m.zeros(2, dtype=m.{d}), {v})",
               "m.tensor([1], dtype=m.{d}).masked_fill(m.tensor([True]), {v})", "m.arange(0, {v}, dtype=m.{d})",
               "m.tensor([{v}], dtype=m.{d})", "m.tensor([{v}]).to(m.{d})"]
INT_EDGE = ["m.tensor([-2**31], dtype=m.int32) // -1", "m.tensor([-2**31], dtype=m.int32) % -1",
            "m.tensor([-2**63]) // -1", "m.tensor([-2**63]) % -1", "m.tensor([-128], dtype=m.int8) // -1",
            "m.tensor([5]) // 0", "m.tensor([5]) % 0", "m.tensor([5]).fmod(0)", "m.tensor([5]).remainder(0)",
            "m.arange(0, 10, 0.3, dtype=m.int64)", "m.arange(0, 5, 0.5, dtype=m.int8)", "m.arange(0, 10, 0)",
            "m.arange(0, float('inf'))", "m.arange(0, float('nan'))", "m.arange(10, 0, 1)", "m.arange(0, 2**62)",
            "m.arange(0, 10, -1)", "m.arange(-2**63, 2**63-1, 2**62)", "m.linspace(0, 1, -1)",
            "m.linspace(0, 1, 2**62)", "m.linspace(float('nan'), 1, 3)", "m.logspace(0, 1, -1)",
            "m.tensor([2], dtype=m.int8) ** 300", "m.tensor([2], dtype=m.int64) ** -1",
            "m.tensor([-1.7]).to(m.uint8)", "m.tensor([1e10]).to(m.int32)", "m.tensor([float('nan')]).long()",
            "m.tensor([5], dtype=m.int32) << 40", "m.tensor([5]) >> -1", "m.tensor([5]) << 64"]

WRONG = ["'a'", "None", "[1, 2]", "[[1, 2, 3]]", "object()", "1j", "(1,)", "{}", "m.float32", "x.numpy()",
         "m.tensor([[1.], [2.]], requires_grad=True)", "m.zeros(5)", "m.zeros(3, dtype=m.bool)", "e", "s",
         "m.zeros(2, 3, dtype=m.float64)", "m.zeros(2, 3, dtype=m.int8)"]
WRONG_CALLS = ["m.add(x, {})", "m.sub(x, {})", "m.mul(x, {})", "m.div(x, {})", "m.pow(x, {})", "m.eq(x, {})",
               "m.maximum(x, {})", "m.matmul(x, {})", "m.mm(x, {})", "x @ {}", "{} * x", "x + {}", "x & {}",
               "m.where(b, {}, 1.0)", "m.where({}, x, x)", "x.masked_fill({}, 1.0)", "x.masked_fill(x > 1, {})",
               "m.cat([x, {}])", "m.stack([x, {}])", "m.clamp(x, {})", "x.to({})", "x.view({})", "x.type({})",
               "x.copy_({})", "m.index_select(x, 0, {})", "x.gather(0, {})", "m.dot(m.ones(3), {})",
               "x.expand_as({})", "m.lerp(x, x, {})", "m.atan2(x, {})", "x.fill_({})", "m.zeros(2, dtype={})",
               "m.softmax(x, 1, dtype={})", "x.sum(dtype={})", "m.isclose(x, {})", "m.from_numpy({})",
               "m.from_dlpack({})", "x.new_tensor({})" , "m.bmm(x, {})", "m.einsum('ij', {})"]

SPECIAL = [
    "x.requires_grad_(); x.register_hook(lambda g: 'a'); x.sum().backward(); r = x.grad",
    "x.requires_grad_(); x.register_hook(lambda g: m.zeros(7)); x.sum().backward(); r = x.grad",
    "y = x.clone().requires_grad_(); z = y * 2; z.backward(); r = y.grad",
    "y = x.clone().requires_grad_(); y.sum().backward(); y.sum().backward(); r = y.grad",
    "y = x.clone().requires_grad_(); r = y.add_(1)",
    "y = x.clone().requires_grad_(); r = y.numpy()",
    "r = m.zeros(2, 3).numpy().reshape((1,) * 60).shape",
    "r = m.zeros((1,) * 65).numpy()",
    "r = m.zeros((1,) * 70).sum()",
    "r = m.tensor(x)",
    "r = x.item()",
    "r = e.item()",
    "r = x.tolist()[5]",
    "r = len(s)",
    "r = iter(s)",
    "r = bool(x)",
    "r = int(x)",
    "r = float(e)",
    "r = x.view(m.int64)",
    "r = x.view(m.int16)",
    "r = x.t().view(-1)",
    "r = x.expand(3, 2, 3).view(-1)",
    "r = m.zeros(3).expand(2, 3).add_(1)",
    "r = m.zeros(3).expand(2, 3).copy_(m.ones(2, 3))",
    "r = x.T.T.mT.reshape(3, 2)",
    "r = m.zeros(0).reshape(0, -1)",
    "r = m.zeros(0).view(-1, 0)",
    "r = m.ones(2, 2)[m.tensor([[True, False]])]",
    "r = m.manual_seed(-1)",
    "r = m.manual_seed(2**64)",
    "r = m.set_num_threads(0)",
    "r = m.set_num_threads(-1)",
]


def probes():
    """The probe statements, in a fixed order."""
    out = []
    out += [c.format(v) for c, v in itertools.product(SIZE_CALLS, SIZES)]
    out += [c.format(v) for c, v in itertools.product(DIM_CALLS, DIMS)]
    out += [c.format(v) for c, v in itertools.product(INDEX_CALLS, INDICES)]
    writes = [c.format(v) for c, v in itertools.product(INDEX_WRITES, INDICES)]
    out += [c.format(a, b, c_) for c, a, b, c_ in itertools.product(STRIDE_CALLS, AS_SIZES, AS_STRIDES, AS_OFFSETS)]
    out += [f"x.unfold({a}, {b}, {c})" for a, b, c in itertools.product(["0", "1", "-1", "2"], UNFOLD, UNFOLD[:5])]
    out += [c.format(v) for c, v in itertools.product(DATA_CALLS, DATA)]
    out += [c.format(v=v, d=d) for c, v, d in itertools.product(LIMIT_CALLS, LIMITS, DTYPES)]
    out += INT_EDGE
    out += [c.format(v) for c, v in itertools.product(WRONG_CALLS, WRONG)]
    out = [p for p in out if _available(p)]
    stmts = [{"src": f"{SETUP}r = {p}", "out": "r", "op": _op(p), "novalues": "empty" in p} for p in out]
    stmts += [{"src": f"{SETUP}{w}; r = x", "out": "r", "op": "setitem"} for w in writes]
    stmts += [{"src": SETUP + p, "out": "r", "op": "special"} for p in SPECIAL]
    return stmts


def _available(call):
    """Only probe what ember has: every m.f( and .method( the call names."""
    for recv, name in re.findall(r"(\w+|\)|\])\.(\w+)\(", call):
        if name not in (AVAILABLE if recv == "m" else AVAILABLE_METHODS):
            return False
    return True


_SYMBOLS = {" + ": "add", " * ": "mul", " // ": "floor_divide", " % ": "remainder", " ** ": "pow", " @ ": "matmul",
            " & ": "bitwise_and", " << ": "bitwise_left_shift", " >> ": "bitwise_right_shift"}


def _op(call):
    """The op a probe exercises: its operator, else its first call or subscript."""
    for sym, name in _SYMBOLS.items():
        if sym in call:
            return name
    head = call.split("(")[0]
    if "[" in head:
        return "getitem"
    return head.split(".")[-1].strip()


def run_probes(jobs=2, timeout_s=20, log=print):
    """Runs every probe on torch and ember; returns (count, failures)."""
    stmts = probes()
    reqs = [(k, ("run", [st])) for k, st in enumerate(stmts)]
    parts = [reqs[j::jobs] for j in range(jobs)]

    def job(part):
        return runner.run_children("torch", part, timeout_s), runner.run_children("ember", part, timeout_s)
    fails = []
    with ThreadPoolExecutor(jobs) as pool:
        for t_res, e_res in pool.map(job, parts):
            for k in sorted(e_res):
                if t_res[k][0] != "ok":
                    fails.append(runner.Failure("torch-side", k, [stmts[k]], 0, f"torch: {t_res[k]}"))
                    continue
                f = runner.judge(k, [stmts[k]], t_res[k][1], e_res[k])
                if f:
                    f.index = 0
                    fails.append(f)
    log(f"{len(stmts)} probes run")
    return len(stmts), fails
