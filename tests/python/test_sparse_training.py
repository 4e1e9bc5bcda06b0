"""Training with sparse gradients against torch 2.13: sparse Embedding / EmbeddingBag gradients (padding, index
dtypes and ranks, accumulation, retain_graph), Tensor.sparse_mask and pow on sparse tensors (values, refusals,
gradients), and optimizers stepping on sparse gradients (SGD, Adagrad, SparseAdam, LBFGS, and the refusals)."""
import copy

import numpy as np
import pytest
import torch

import ember

pytestmark = [pytest.mark.filterwarnings("ignore:Sparse invariant checks are implicitly disabled:UserWarning"),
              pytest.mark.filterwarnings("ignore:Sparse CSR tensor support is in beta state:UserWarning")]

FLOATS = ["float32", "float64"]
N, D = 7, 3  # embedding rows and columns, the shape of every optimised sparse-grad parameter
WEIGHT = np.random.default_rng(0).standard_normal((N, D))


def T(m, x, dtype="float32"):
    """The same values as an m tensor, built from Python lists (no shared memory)."""
    return m.tensor(np.asarray(x).tolist(), dtype=getattr(m, dtype))


def I(m, x, dtype="int64"):  # noqa: E743 - index tensors
    return T(m, x, dtype)


def shifted(m, key, k):
    """INDEX[key] moved by k rows (mod N): different rows for each backward."""
    return (I(m, INDEX[key]) + k) % N


def up(shape, seed=1):
    """A seeded upstream gradient: loss = (out * up).sum() gives every output element its own weight."""
    return np.random.default_rng(seed).standard_normal(tuple(shape))


def weighted_sum(m, out, dtype, seed=1):
    return (out * T(m, up(out.shape, seed), dtype)).sum()


def close(e, t, tol=None):
    """Equal layout, shape and dtype; COO: equal indices, nnz and coalesced flag; CSR: equal index parts; values
    within rtol 1e-6 / atol 1e-7 (float32) or 1e-12 / 1e-13 (float64), exact for integers."""
    assert isinstance(e, ember.Tensor), type(e)
    assert str(e.layout) == str(t.layout) and tuple(e.shape) == tuple(t.shape) and str(e.dtype) == str(t.dtype)
    assert e.requires_grad == t.requires_grad
    e, t = e.detach(), t.detach()
    if t.layout == torch.sparse_coo:
        assert e.is_coalesced() == t.is_coalesced() and e._nnz() == t._nnz()
        assert e.sparse_dim() == t.sparse_dim() and e.dense_dim() == t.dense_dim()
        assert e._indices().tolist() == t._indices().tolist()
        e, t = e._values(), t._values()
    elif t.layout == torch.sparse_csr:
        assert e.crow_indices().tolist() == t.crow_indices().tolist()
        assert e.col_indices().tolist() == t.col_indices().tolist()
        e, t = e.values(), t.values()
    got = np.asarray(e.tolist(), dtype=np.float64).reshape(tuple(t.shape))
    tol = tol or (dict(rtol=1e-12, atol=1e-13) if t.dtype == torch.float64 else dict(rtol=1e-6, atol=1e-7))
    if not t.dtype.is_floating_point:
        tol = dict(rtol=0, atol=0)
    np.testing.assert_allclose(got, t.double().numpy(), **tol)


def close_all(e, t, tol=None):
    """Nested results (tuples, lists, dicts, tensors, None, numbers) equal or close leaf by leaf."""
    if isinstance(t, torch.Tensor):
        close(e, t, tol)
    elif isinstance(t, dict):
        assert sorted(e) == sorted(t), (list(e), list(t))
        for k in t:
            close_all(e[k], t[k], tol)
    elif isinstance(t, (tuple, list)):
        assert type(e) is type(t) and len(e) == len(t), (e, t)
        for a, b in zip(e, t):
            close_all(a, b, tol)
    else:
        assert type(e) is type(t) and e == t, (e, t)


def both(prog, tol=None):
    """Run the same program with ember and torch and compare what it returns."""
    close_all(prog(ember), prog(torch), tol)


def error(fn, m):
    try:
        fn(m)
    except Exception as err:  # noqa: BLE001 - the type and message are what is compared
        return type(err).__name__, str(err)
    return None


def same_error(fn, message):
    """ember raises what torch raises: the same exception type, and both messages contain `message`."""
    ee, te = error(fn, ember), error(fn, torch)
    assert ee is not None and te is not None and ee[0] == te[0], (ee, te)
    assert message in te[1], te
    assert message in ee[1], (ee, te)


# ---------------------------------------------------------------------------------------------- sparse embedding

INDEX = {
    "1d": [4, 0, 2, 4, 6, 1],
    "2d": [[1, 3, 3], [0, 6, 1]],
    "3d": [[[2, 5], [5, 0]], [[1, 1], [6, 3]]],
    "all_padding": [[1, 1], [1, 1]],  # padding_idx 1: a grad with nnz 0
}


def embedding(m, api, idx, dtype, **kwargs):
    """(weight, output): an Embedding module holding WEIGHT, or F.embedding of a leaf WEIGHT."""
    if api == "module":
        emb = m.nn.Embedding(N, D, sparse=True, dtype=getattr(m, dtype), **kwargs)
        with m.no_grad():
            emb.weight.copy_(T(m, WEIGHT, dtype))
        return emb.weight, emb(idx)
    w = T(m, WEIGHT, dtype).requires_grad_()
    return w, m.nn.functional.embedding(idx, w, sparse=True, **kwargs)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("padding_idx", [None, 1, -1])
@pytest.mark.parametrize("shape", list(INDEX))
@pytest.mark.parametrize("api", ["module", "functional"])
def test_embedding_sparse_grad(api, shape, padding_idx, index_dtype, dtype):
    def prog(m):
        w, out = embedding(m, api, I(m, INDEX[shape], index_dtype), dtype, padding_idx=padding_idx)
        weighted_sum(m, out, dtype).backward()
        return out, w.grad

    both(prog)


@pytest.mark.parametrize("kwargs", [dict(padding_idx=2), dict(max_norm=1.0), dict(max_norm=1.5, norm_type=1.0)])
def test_embedding_sparse_from_pretrained(kwargs):
    def prog(m):
        emb = m.nn.Embedding.from_pretrained(T(m, WEIGHT), freeze=False, sparse=True, **kwargs)
        weighted_sum(m, emb(shifted(m, "2d", 1)), "float32").backward()
        return emb.weight, emb.weight.grad  # max_norm renormalises the looked-up rows in place

    both(prog)


@pytest.mark.parametrize("api", ["module", "functional"])
def test_embedding_sparse_scale_grad_by_freq_raises_at_backward(api):
    def prog(m):
        w, out = embedding(m, api, I(m, INDEX["2d"]), "float32", scale_grad_by_freq=True)  # the forward works
        out.sum().backward()

    same_error(prog, "scale_grad_by_freq not supported with sparse gradients")


ACCUMULATE = {  # the sparse flag of each backward into the same weight
    "sparse_sparse": (True, True),
    "dense_sparse": (False, True),
    "sparse_dense": (True, False),
    "sparse_sparse_sparse": (True, True, True),
}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("order", list(ACCUMULATE))
@pytest.mark.parametrize("fn", ["embedding", "embedding_bag"])
def test_embedding_grad_accumulates_across_backwards(fn, order, dtype):
    def prog(m):
        w = T(m, WEIGHT, dtype).requires_grad_()
        grads = []
        for k, sparse in enumerate(ACCUMULATE[order]):
            kwargs = dict(mode="mean") if fn == "embedding_bag" else {}
            out = getattr(m.nn.functional, fn)(shifted(m, "2d", k), w, sparse=sparse, **kwargs)
            weighted_sum(m, out, dtype, seed=k).backward()
            grads.append(w.grad.clone())
        return grads

    both(prog)


@pytest.mark.parametrize("dtype", FLOATS)
def test_embedding_sparse_and_dense_uses_in_one_graph(dtype):
    def prog(m):
        w = T(m, WEIGHT, dtype).requires_grad_()
        out = m.nn.functional.embedding(I(m, INDEX["1d"]), w, sparse=True)
        (weighted_sum(m, out, dtype) + (w * w).sum()).backward()
        return w.grad

    both(prog)


@pytest.mark.parametrize("api", ["module", "functional"])
def test_embedding_sparse_retain_graph(api):
    def prog(m):
        w, out = embedding(m, api, I(m, INDEX["3d"]), "float32", padding_idx=5)
        loss = weighted_sum(m, out, "float32")
        loss.backward(retain_graph=True)
        first = w.grad.clone()
        loss.backward()
        return first, w.grad

    both(prog)


# ---------------------------------------------------------------------------------------------- sparse bags

BAG_INPUTS = {  # (input, offsets): an empty bag and a repeated index in the offsets form
    "offsets": ([4, 0, 2, 4, 6, 1, 1], [0, 2, 2, 5]),
    "2d": ([[1, 3, 3], [0, 6, 1]], None),
    "all_padding": ([[1, 1], [1, 1]], None),  # padding_idx 1: a grad with nnz 0
}
BAG_CASES = [(mode, psw, pad, inp, last) for mode, psw in [("sum", False), ("sum", True), ("mean", False)]
             for pad in [None, 1] for inp in BAG_INPUTS for last in [False, True]
             if not (last and BAG_INPUTS[inp][1] is None)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("index_dtype", ["int64", "int32"])
@pytest.mark.parametrize("api", ["module", "functional"])
@pytest.mark.parametrize("mode,per_sample,padding_idx,inputs,include_last_offset", BAG_CASES)
def test_embedding_bag_sparse_grad(mode, per_sample, padding_idx, inputs, include_last_offset, api, index_dtype,
                                   dtype):
    def prog(m):
        raw, offsets = BAG_INPUTS[inputs]
        if include_last_offset:  # the documented form: offsets end with len(input)
            offsets = offsets + [len(raw)]
        idx, offsets = I(m, raw, index_dtype), None if offsets is None else I(m, offsets, index_dtype)
        psw = T(m, up(idx.shape, seed=3), dtype).requires_grad_() if per_sample else None
        kwargs = dict(mode=mode, sparse=True, padding_idx=padding_idx, include_last_offset=include_last_offset)
        if api == "module":
            bag = m.nn.EmbeddingBag(N, D, dtype=getattr(m, dtype), **kwargs)
            with m.no_grad():
                bag.weight.copy_(T(m, WEIGHT, dtype))
            w, out = bag.weight, bag(idx, offsets, per_sample_weights=psw)
        else:
            w = T(m, WEIGHT, dtype).requires_grad_()
            out = m.nn.functional.embedding_bag(idx, w, offsets, per_sample_weights=psw, **kwargs)
        weighted_sum(m, out, dtype).backward()
        return out, w.grad, None if psw is None else psw.grad

    both(prog)


@pytest.mark.parametrize("api", ["module", "functional"])
def test_embedding_bag_max_mode_refuses_sparse(api):
    def prog(m):
        if api == "module":
            m.nn.EmbeddingBag(N, D, mode="max", sparse=True)(I(m, INDEX["2d"]))
        else:
            m.nn.functional.embedding_bag(I(m, INDEX["2d"]), T(m, WEIGHT), mode="max", sparse=True)

    same_error(prog, "max mode does not support sparse weights")


# ---------------------------------------------------------------------------------------------- sparse_mask, pow

def coo(m, indices, values, size, dtype="float32"):
    return m.sparse_coo_tensor(I(m, indices), T(m, values, dtype), size)


def S(m, dtype="float32"):  # (0, 2) twice: uncoalesced
    return coo(m, [[0, 1, 2, 0, 3], [2, 0, 1, 2, 3]], [3.0, -4.0, 5.0, 1.5, 0.25], (4, 4), dtype)


def SD(m, dtype="float32"):  # dense dims: values (nnz, 2)
    return coo(m, [[0, 2, 0]], [[1.0, -1.0], [2.0, 0.5], [3.0, 4.0]], (4, 2), dtype)


DENSE = np.random.default_rng(5).integers(-9, 10, (4, 4)) / 4  # exact in every dtype; int64 truncates
MASKS = {
    "coo": lambda m, dt: S(m, dt),
    "coo_coalesced": lambda m, dt: S(m, dt).coalesce(),
    "coo_other": lambda m, dt: coo(m, [[3, 0, 1], [0, 2, 0]], [1.0, 1.0, 1.0], (4, 4), dt),
    "coo_empty": lambda m, dt: m.sparse_coo_tensor((4, 4), dtype=getattr(m, dt)),
    "csr": lambda m, dt: S(m, dt).to_sparse_csr(),
}
SELVES = {
    "dense": lambda m, dt: T(m, DENSE, dt),
    "sparse": lambda m, dt: coo(m, [[0, 3, 1, 0], [2, 3, 1, 2]], [2.0, 7.0, 9.0, -1.0], (4, 4), dt),
    "sparse_coalesced": lambda m, dt: coo(m, [[0, 3, 1, 0], [2, 3, 1, 2]], [2.0, 7.0, 9.0, -1.0], (4, 4),
                                          dt).coalesce(),
}


@pytest.mark.parametrize("dtype", FLOATS + ["int64"])
@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("self_kind", list(SELVES))
def test_sparse_mask(self_kind, mask, dtype):
    both(lambda m: SELVES[self_kind](m, dtype).sparse_mask(MASKS[mask](m, dtype)))


@pytest.mark.parametrize("self_kind", ["dense", "sparse"])
def test_sparse_mask_dense_dims(self_kind):
    def prog(m):
        x = T(m, DENSE[:, :2]) if self_kind == "dense" else coo(m, [[2, 1]], [[5.0, 6.0], [7.0, 8.0]], (4, 2))
        return x.sparse_mask(SD(m))

    both(prog)


SPARSE_MASK_ERRORS = [  # RuntimeError, RuntimeError, NotImplementedError
    ("size", "sparse_mask(): operands have incompatible sizes; self has size [4, 4] but mask has size [4, 3]",
     lambda m: T(m, DENSE).sparse_mask(m.sparse_coo_tensor((4, 3)))),
    ("size_sparse_self", "sparse_mask(): operands have incompatible sizes",
     lambda m: S(m).sparse_mask(m.sparse_coo_tensor((3, 4)))),
    ("dense_mask", "Could not run 'aten::sparse_mask' with arguments from the",
     lambda m: T(m, DENSE).sparse_mask(T(m, DENSE))),
]


@pytest.mark.parametrize("kind,message,fn", SPARSE_MASK_ERRORS, ids=[c[0] for c in SPARSE_MASK_ERRORS])
def test_sparse_mask_errors(kind, message, fn):
    same_error(fn, message)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("backward", ["to_dense", "sparse_sum", "values"])
@pytest.mark.parametrize("mask", ["coo", "coo_coalesced", "coo_other"])
def test_sparse_mask_grad_to_dense_self(mask, backward, dtype):
    def prog(m):
        x = T(m, DENSE, dtype).requires_grad_()
        y = x.sparse_mask(MASKS[mask](m, dtype))
        if backward == "to_dense":
            loss = weighted_sum(m, y.to_dense(), dtype)
        elif backward == "sparse_sum":
            loss = m.sparse.sum(y)
        else:
            loss = weighted_sum(m, y.coalesce().values(), dtype)
        loss.backward()
        return y, x.grad

    both(prog)


POW_FORMS = {
    "operator": lambda s, e: s ** e,
    "function": lambda s, e: (ember if isinstance(s, ember.Tensor) else torch).pow(s, e),
    "method": lambda s, e: s.pow(e),
}
POW_SOURCES = {"uncoalesced": S, "coalesced": lambda m, dt: S(m, dt).coalesce(), "dense_dims": SD}


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("exponent", [2, 3, 0.5, -1.0, 2.5, -3])
@pytest.mark.parametrize("source", list(POW_SOURCES))
@pytest.mark.parametrize("form", list(POW_FORMS))
def test_sparse_pow(form, source, exponent, dtype):
    def prog(m):
        s = POW_SOURCES[source](m, dtype)
        return POW_FORMS[form](s if exponent == int(exponent) else s.abs(), exponent)  # no NaN

    both(prog)


@pytest.mark.parametrize("exponent", [2, 3])
@pytest.mark.parametrize("dtype", ["int64", "int32"])
def test_sparse_pow_int(dtype, exponent):
    both(lambda m: S(m, "float32").to(getattr(m, dtype)) ** exponent)


POW_ERRORS = [
    ("zero", "pow: cannot raise to zeroth power on sparse tensor", lambda m: S(m) ** 0),
    ("zero_float", "pow: cannot raise to zeroth power on sparse tensor", lambda m: m.pow(S(m), 0.0)),
    ("int_float_exponent", "result type Float can't be cast to the desired output type Long",
     lambda m: S(m).long() ** 2.5),
    ("tensor_exponent", "Could not run 'aten::pow.Tensor_Tensor' with arguments from the 'SparseCPU' backend",
     lambda m: S(m) ** m.tensor(2.0)),
    ("inplace", "Could not run 'aten::pow_.Scalar' with arguments from the 'SparseCPU' backend",
     lambda m: S(m).pow_(2)),
]


@pytest.mark.parametrize("kind,message,fn", POW_ERRORS, ids=[c[0] for c in POW_ERRORS])
def test_sparse_pow_errors(kind, message, fn):
    same_error(fn, message)


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("backward", ["to_dense", "sparse_sum"])
@pytest.mark.parametrize("exponent", [2, 3, -1.0])
@pytest.mark.parametrize("source", list(POW_SOURCES))
def test_sparse_pow_grad(source, exponent, backward, dtype):
    def prog(m):
        x = POW_SOURCES[source](m, dtype).requires_grad_()
        y = x.pow(exponent)
        (weighted_sum(m, y.to_dense(), dtype) if backward == "to_dense" else m.sparse.sum(y)).backward()
        return y, x.grad

    both(prog)


# ---------------------------------------------------------------------------------------------- optimizers

def sparse_grads(steps=6, seed=2, nnz=5):
    """Seeded (indices, values) per step: duplicate rows, untouched rows, and one step with nnz 0."""
    rng = np.random.default_rng(seed)
    out = [(rng.integers(0, N, (1, nnz)), rng.standard_normal((nnz, D))) for _ in range(steps)]
    out[steps // 2] = (np.zeros((1, 0), dtype=np.int64), np.zeros((0, D)))
    return out


def sparse_grad(m, indices, values, dtype):
    return m.sparse_coo_tensor(I(m, indices), T(m, values, dtype).reshape(-1, D), (N, D))


def state_of(opt):
    """The optimizer's state_dict, with its param_groups, for close_all."""
    sd = opt.state_dict()
    return {"state": {k: dict(v) for k, v in sd["state"].items()}, "param_groups": sd["param_groups"]}


def train(m, name, kwargs, dtype, grads):
    p = m.nn.Parameter(T(m, WEIGHT, dtype))
    opt = getattr(m.optim, name)([p], **kwargs)
    for indices, values in grads:
        p.grad = sparse_grad(m, indices, values, dtype)
        opt.step()
    return p.detach(), state_of(opt)


OPTIM_SETTINGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.3)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True)),
    ("SGD", dict(lr=0.1, maximize=True)),
    ("SGD", dict(lr=0.1, momentum=0.5, maximize=True)),
    ("Adagrad", dict()),
    ("Adagrad", dict(lr=0.1, lr_decay=0.05, initial_accumulator_value=0.3, eps=1e-6)),
    ("Adagrad", dict(lr=0.2, maximize=True)),
    ("SparseAdam", dict()),
    ("SparseAdam", dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6)),
    ("SparseAdam", dict(lr=0.02, betas=(0.5, 0.9), maximize=True)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,kwargs", OPTIM_SETTINGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(OPTIM_SETTINGS)])
def test_optimizer_sparse_grad_trajectory(name, kwargs, dtype):
    both(lambda m: train(m, name, kwargs, dtype, sparse_grads()))


def test_sparse_adam_state_dict_round_trip():
    grads = sparse_grads(steps=8, seed=4)

    def prog(m):
        p = m.nn.Parameter(T(m, WEIGHT))
        opt = m.optim.SparseAdam([p], lr=0.05, betas=(0.7, 0.95))
        for indices, values in grads[:4]:
            p.grad = sparse_grad(m, indices, values, "float32")
            opt.step()
        saved = copy.deepcopy(opt.state_dict())
        assert type(saved["state"][0]["step"]) is int
        q = m.nn.Parameter(p.detach().clone())
        fresh = m.optim.SparseAdam([q], lr=0.3)
        fresh.load_state_dict(saved)  # the group's lr and betas come back too
        for indices, values in grads[4:]:
            q.grad = sparse_grad(m, indices, values, "float32")
            fresh.step()
        return saved["state"][0], state_of(fresh), q.detach()

    both(prog)


SPARSE_ADAM_INVALID = [
    (dict(lr=-1.0), "Invalid learning rate: -1.0"),
    (dict(eps=-1e-8), "Invalid epsilon value: -1e-08"),
    (dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    (dict(betas=(-0.1, 0.9)), "Invalid beta parameter at index 0: -0.1"),
    (dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
]


@pytest.mark.parametrize("kwargs,message", SPARSE_ADAM_INVALID)
def test_sparse_adam_invalid_arguments(kwargs, message):
    same_error(lambda m: m.optim.SparseAdam([m.nn.Parameter(T(m, WEIGHT))], **kwargs), message)


def test_sparse_adam_refuses_sparse_params():
    def prog(m):
        m.optim.SparseAdam([m.nn.Parameter(T(m, WEIGHT)), m.nn.Parameter(S(m))])

    same_error(lambda m: m.optim.SparseAdam([m.nn.Parameter(S(m))]),
               "Sparse params at indices [[0, 0]]: SparseAdam requires dense parameter tensors")
    same_error(prog, "Sparse params at indices [[0, 1]]: SparseAdam requires dense parameter tensors")


REFUSALS = [  # (name, kwargs, is the refused grad sparse?, message)
    ("Adam", dict(), True, "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("AdamW", dict(), True, "Adam does not support sparse gradients, please consider SparseAdam instead"),
    ("RMSprop", dict(), True, "RMSprop does not support sparse gradients"),
    ("Adamax", dict(), True, "Adamax does not support sparse gradients"),
    ("NAdam", dict(), True, "NAdam does not support sparse gradients"),
    ("RAdam", dict(), True, "RAdam does not support sparse gradients"),
    ("Adadelta", dict(), True, "Adadelta does not support sparse gradients"),
    ("SGD", dict(lr=0.1, weight_decay=0.01), True,
     "add(sparse, dense) is not supported. Use add(dense, sparse) instead."),
    ("SGD", dict(lr=0.1, momentum=0.9, weight_decay=0.01), True,
     "add(sparse, dense) is not supported. Use add(dense, sparse) instead."),
    ("Adagrad", dict(weight_decay=0.1), True, "weight_decay option is not compatible with sparse gradients"),
    ("SparseAdam", dict(), False, "SparseAdam does not support dense gradients, please consider Adam instead"),
]


@pytest.mark.parametrize("second", [False, True], ids=["alone", "second"])
@pytest.mark.parametrize("name,kwargs,sparse,message", REFUSALS, ids=[f"{r[0]}-{i}" for i, r in enumerate(REFUSALS)])
def test_optimizer_refusals(name, kwargs, sparse, message, second):
    """The refused grad alone, or after a parameter whose grad the optimizer takes: every parameter is left as it was
    (torch's SGD and Adagrad weight_decay refusals first update the parameters before the sparse one; Ember raises
    before changing any)."""
    indices, values = sparse_grads()[0]

    def run(m):
        sparse_g, dense_g = sparse_grad(m, indices, values, "float32"), T(m, up(WEIGHT.shape))
        grads = ([dense_g, sparse_g] if sparse else [sparse_g, dense_g])[0 if second else 1:]  # refused one last
        params = [m.nn.Parameter(T(m, WEIGHT)) for _ in grads]
        for p, g in zip(params, grads):
            p.grad = g
        opt = getattr(m.optim, name)(params, **kwargs)
        return error(lambda _: opt.step(), m), [p.detach() for p in params]

    (ee, ep), (te, tp) = run(ember), run(torch)
    assert ee is not None and te is not None and ee[0] == te[0] and message in ee[1] and message in te[1], (ee, te)
    close_all(ep, [T(torch, WEIGHT) for _ in tp])


@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_lbfgs_with_sparse_grad(dtype, line_search_fn):
    def prog(m):
        w = m.nn.Parameter(T(m, WEIGHT, dtype))
        opt = m.optim.LBFGS([w], lr=0.5, max_iter=4, history_size=3, line_search_fn=line_search_fn)
        idx, target = I(m, INDEX["2d"]), T(m, up((2, 3, D), seed=6), dtype)

        def closure():
            opt.zero_grad()
            loss = ((m.nn.functional.embedding(idx, w, sparse=True) - target) ** 2).sum()
            loss.backward()
            assert w.grad.is_sparse
            return loss

        losses = [opt.step(closure) for _ in range(3)]
        return losses, w.detach()

    both(prog)


MIXED = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9, nesterov=True)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, maximize=True)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01)),
]


def mixed_model(m, dtype):
    """A sparse Embedding feeding two dense Linear layers; every weight from seeded numpy."""
    rng = np.random.default_rng(7)
    model = m.nn.Sequential(m.nn.Embedding(N, D, sparse=True, padding_idx=0), m.nn.Flatten(),
                            m.nn.Linear(3 * D, 4), m.nn.Tanh(), m.nn.Linear(4, 2)).to(getattr(m, dtype))
    with m.no_grad():
        for p in model.parameters():
            p.copy_(T(m, rng.standard_normal(tuple(p.shape)), dtype))
    return model


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("name,kwargs", MIXED, ids=[f"{n}-{i}" for i, (n, _) in enumerate(MIXED)])
def test_mixed_sparse_embedding_and_dense_layers(name, kwargs, dtype):
    rng = np.random.default_rng(8)
    batches = [(rng.integers(0, N, (5, 3)), rng.standard_normal((5, 2))) for _ in range(5)]

    def prog(m):
        model = mixed_model(m, dtype)
        opt = getattr(m.optim, name)(model.parameters(), **kwargs)
        grads = []
        for x, y in batches:
            opt.zero_grad()
            loss = ((model(I(m, x)) - T(m, y, dtype)) ** 2).mean()
            loss.backward()
            grads.append([p.grad.clone() for p in model.parameters()])
            opt.step()
        return grads, [p.detach() for p in model.parameters()], state_of(opt)

    # float32: the dense Linear layers' forward already differs from torch's in the last bit (gemm summation
    # order), and five steps carry that into small gradients; float64 holds the tight tolerance
    both(prog, dict(rtol=1e-5, atol=1e-6) if dtype == "float32" else None)


@pytest.mark.parametrize("name,kwargs", [("SGD", dict(lr=0.1, momentum=0.9)), ("Adagrad", dict(lr=0.1)),
                                         ("SparseAdam", dict(lr=0.1))])
def test_zero_grad_keeps_sparse_grads(name, kwargs):
    def prog(m):
        emb = m.nn.Embedding(N, D, sparse=True)
        with m.no_grad():
            emb.weight.copy_(T(m, WEIGHT))
        opt = getattr(m.optim, name)(emb.parameters(), **kwargs)
        seen = []
        for k in range(3):
            opt.zero_grad(set_to_none=False)
            seen.append(None if emb.weight.grad is None else emb.weight.grad.clone())
            weighted_sum(m, emb(shifted(m, "2d", k)), "float32", seed=k).backward()
            seen.append(emb.weight.grad.clone())
            opt.step()
        return seen, emb.weight.detach(), state_of(opt)

    both(prog)
