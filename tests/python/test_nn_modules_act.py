"""ember.nn's activation and loss modules against torch.nn: values, gradients, state_dict, repr, errors."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn as enn
from conftest import assert_same, to_torch

tnn = torch.nn


def pair(*shape, seed=1, scale=1.0, dtype=torch.float32):
    t = torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=dtype) * scale
    return ember.from_numpy(t.numpy().copy()), t


def run_both(name, args, kwargs, inputs, train=True):
    """The module `name` built in both libraries, called on the same inputs; returns both outputs, the modules
    and the input pairs (which require grad)."""
    ember.manual_seed(0)
    torch.manual_seed(0)
    em, tm = getattr(enn, name)(*args, **kwargs), getattr(tnn, name)(*args, **kwargs)
    em.train(train)
    tm.train(train)
    ember.manual_seed(3)
    torch.manual_seed(3)
    return em, tm, em(*[e for e, _ in inputs]), tm(*[t for _, t in inputs])


ACTIVATIONS = [
    ("ReLU", (), {}), ("ReLU", (), {"inplace": True}), ("ReLU6", (), {}), ("LeakyReLU", (0.2,), {}),
    ("LeakyReLU", (), {"inplace": True}), ("PReLU", (), {}), ("PReLU", (4,), {"init": 0.1}), ("RReLU", (), {}),
    ("RReLU", (0.1, 0.3), {}), ("ELU", (), {"alpha": 0.5}), ("SELU", (), {}), ("CELU", (2.0,), {}),
    ("GELU", (), {}), ("GELU", ("tanh",), {}), ("SiLU", (), {}), ("Mish", (), {}), ("Sigmoid", (), {}),
    ("Tanh", (), {}), ("Softmax", (1,), {}), ("LogSoftmax", (), {"dim": -1}), ("Softmin", (0,), {}),
    ("Softmax2d", (), {}), ("Softplus", (2.0, 10.0), {}), ("Softsign", (), {}), ("Softshrink", (0.3,), {}),
    ("Hardshrink", (), {}), ("Tanhshrink", (), {}), ("Hardtanh", (-0.5, 0.75), {}), ("Hardswish", (), {}),
    ("Hardsigmoid", (), {}), ("LogSigmoid", (), {}), ("Threshold", (0.1, 20.0), {}), ("GLU", (), {"dim": 1}),
    ("Threshold", (0.1, 20.0, True), {}), ("ELU", (), {"inplace": True}), ("Hardtanh", (), {"inplace": True}),
]


@pytest.mark.parametrize("name,args,kwargs", ACTIVATIONS, ids=lambda v: str(v))
@pytest.mark.parametrize("train", [True, False])
def test_activation_values_grads_repr(name, args, kwargs, train):
    inplace = kwargs.get("inplace") or (name == "Threshold" and len(args) == 3)
    e, t = pair(2, 4, 3, 5, scale=3)
    if not inplace:
        e.requires_grad_(True)
        t.requires_grad_(True)
    em, tm, ey, ty = run_both(name, args, kwargs, [(e, t)], train)
    assert repr(em) == repr(tm)
    assert list(em.state_dict()) == list(tm.state_dict())
    for (k, ev), tv in zip(em.state_dict().items(), tm.state_dict().values()):
        assert_same(ev, tv)
    assert_same(ey.detach(), ty.detach(), rtol=1e-6, atol=1e-6)
    if inplace:
        assert ey is e
        return
    g_e, g_t = pair(*ty.shape, seed=7)
    ey.backward(g_e)
    ty.backward(g_t)
    assert_same(e.grad, t.grad, rtol=1e-5, atol=1e-6)
    for (_, ep), tp in zip(em.named_parameters(), tm.parameters()):
        assert_same(ep.grad, tp.grad, rtol=1e-5, atol=1e-5)


def test_activation_attributes_and_defaults():
    for name, attrs in [("ReLU6", ["min_val", "max_val", "inplace"]), ("LeakyReLU", ["negative_slope", "inplace"]),
                        ("RReLU", ["lower", "upper", "inplace"]), ("PReLU", ["num_parameters", "init"]),
                        ("Softplus", ["beta", "threshold"]), ("GELU", ["approximate"]), ("Softmax", ["dim"]),
                        ("Softshrink", ["lambd"]), ("GLU", ["dim"]), ("CELU", ["alpha", "inplace"])]:
        em, tm = getattr(enn, name)(), getattr(tnn, name)()
        for a in attrs:
            assert getattr(em, a) == getattr(tm, a), (name, a)
    r = enn.ReLU()
    r.inplace = True
    assert repr(r) == "ReLU(inplace=True)"
    assert isinstance(enn.ReLU6(), enn.Hardtanh) and enn.ReLU.__module__ == "ember.nn"


def test_activation_errors_and_warnings():
    with pytest.raises(AssertionError, match=r"max_val \(0.0\) must be greater than min_val \(1.0\)"):
        enn.Hardtanh(1.0, 0.0)
    with pytest.raises(ValueError, match="Softmax2d: expected input to be 3D or 4D, got 2D instead"):
        enn.Softmax2d()(ember.ones(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
        enn.Softmax()(ember.ones(2, 3))
    with pytest.warns(UserWarning, match="`min_value` is deprecated and renamed to `min_val`"):
        h = enn.Hardtanh(min_value=-2.0)
    assert h.min_val == -2.0
    with pytest.raises(TypeError):
        enn.Threshold(0.1)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        enn.GLU()(ember.ones(3))
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        tnn.GLU()(torch.ones(3))


def test_prelu_bitwise_init_dtype_and_subclass():
    em, tm = enn.PReLU(3, 0.3, dtype=ember.float64), tnn.PReLU(3, 0.3, dtype=torch.float64)
    assert_same(em.weight.detach(), tm.weight.detach())
    assert em.weight.requires_grad and type(em.weight).__name__ == "Parameter"

    class Doubled(enn.ReLU):
        def forward(self, x):
            return super().forward(x) * 2

    e, t = pair(3, 4)
    assert repr(Doubled()) == "Doubled()"
    assert_same(Doubled()(e), torch.relu(t) * 2)


def test_rrelu_train_matches_torch_stream():
    e, t = pair(64, 32, seed=4)
    em, tm, ey, ty = run_both("RReLU", (), {}, [(e, t)], True)
    assert_same(ey.detach(), ty.detach(), rtol=1e-6, atol=1e-7)  # the same noise (torch's stream)


def _targets(seed=2):
    g = torch.Generator().manual_seed(seed)
    cls = torch.randint(0, 5, (6,), generator=g)
    prob = torch.rand(6, 5, generator=g)
    sign = torch.randint(0, 2, (6,), generator=g).float() * 2 - 1
    return {"cls": cls, "prob": prob, "sign": sign, "binary": (prob > 0.5).float(), "pos": prob * 3}


def _as_ember(t):
    return ember.from_numpy(t.numpy().copy())


# (name, kwargs (tensors given as torch), input kinds): "x" a (6, 5) float input needing grad, others from _targets
LOSSES = [
    ("CrossEntropyLoss", {}, ["x", "cls"]), ("CrossEntropyLoss", {"label_smoothing": 0.1, "ignore_index": 2}, ["x", "cls"]),
    ("CrossEntropyLoss", {"weight": torch.arange(1.0, 6.0), "reduction": "sum"}, ["x", "cls"]),
    ("CrossEntropyLoss", {}, ["x", "prob"]), ("NLLLoss", {"weight": torch.rand(5)}, ["x", "cls"]),
    ("NLLLoss", {"reduction": "none"}, ["x", "cls"]), ("MSELoss", {}, ["x", "prob"]),
    ("MSELoss", {"size_average": False}, ["x", "prob"]), ("L1Loss", {"reduction": "none"}, ["x", "prob"]),
    ("SmoothL1Loss", {"beta": 0.5}, ["x", "prob"]), ("HuberLoss", {"delta": 0.3}, ["x", "prob"]),
    ("BCELoss", {"weight": torch.rand(5)}, ["p", "prob"]), ("BCEWithLogitsLoss", {}, ["x", "binary"]),
    ("BCEWithLogitsLoss", {"pos_weight": torch.rand(5), "weight": torch.rand(5)}, ["x", "binary"]),
    ("KLDivLoss", {"reduction": "batchmean"}, ["x", "prob"]), ("KLDivLoss", {"log_target": True}, ["x", "x2"]),
    ("CosineEmbeddingLoss", {"margin": 0.2}, ["x", "x2", "sign"]),
    ("MarginRankingLoss", {"margin": 0.1}, ["x1", "x2_1", "sign"]), ("TripletMarginLoss", {}, ["x", "x2", "x3"]),
    ("TripletMarginLoss", {"p": 1.0, "swap": True, "reduce": False}, ["x", "x2", "x3"]),
    ("TripletMarginWithDistanceLoss", {}, ["x", "x2", "x3"]),
    ("TripletMarginWithDistanceLoss", {"margin": 0.5, "swap": True, "reduction": "sum"}, ["x", "x2", "x3"]),
    ("GaussianNLLLoss", {}, ["x", "prob", "pos"]), ("GaussianNLLLoss", {"full": True}, ["x", "prob", "pos"]),
    ("PoissonNLLLoss", {}, ["x", "pos"]), ("PoissonNLLLoss", {"log_input": False, "full": True}, ["p", "pos"]),
    ("SoftMarginLoss", {}, ["x", "signs"]), ("MultiLabelSoftMarginLoss", {"weight": torch.rand(5)}, ["x", "binary"]),
    ("MultiMarginLoss", {}, ["x", "cls"]), ("MultiMarginLoss", {"p": 2, "margin": 0.5, "weight": torch.rand(5)}, ["x", "cls"]),
    ("HingeEmbeddingLoss", {"margin": 0.5}, ["x", "signs"]), ("MultiLabelMarginLoss", {}, ["x", "labels"]),
    ("MultiLabelMarginLoss", {"reduction": "none"}, ["x", "labels"]),
]


def _loss_inputs(kinds):
    t = _targets()
    out = []
    for i, k in enumerate(kinds):
        if k in ("x", "x2", "x3", "p", "x1", "x2_1"):
            shape = (6,) if k in ("x1", "x2_1") else (6, 5)
            base = torch.randn(*shape, generator=torch.Generator().manual_seed(10 + i))
            base = torch.sigmoid(base) if k == "p" else base
            e = _as_ember(base).requires_grad_(True)
            out.append((e, base.clone().requires_grad_(True)))
        elif k == "labels":
            y = torch.tensor([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 0, 0, 0, 0], [4, 4, -1, 0, 0],
                              [0, 1, 2, -1, -1], [2, -1, 3, 3, 3]])
            out.append((_as_ember(y), y))
        elif k == "signs":
            s = torch.sign(torch.randn(6, 5, generator=torch.Generator().manual_seed(5)))
            out.append((_as_ember(s), s))
        else:
            out.append((_as_ember(t[k]), t[k]))
    return out


@pytest.mark.parametrize("name,kwargs,kinds", LOSSES, ids=lambda v: str(v))
def test_loss_values_grads_state_repr(name, kwargs, kinds):
    ekw = {k: _as_ember(v) if isinstance(v, torch.Tensor) else v for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        em, tm = getattr(enn, name)(**ekw), getattr(tnn, name)(**kwargs)
    assert repr(em) == repr(tm) and em.reduction == tm.reduction
    assert list(em.state_dict()) == list(tm.state_dict())
    assert list(dict(em.named_buffers())) == list(dict(tm.named_buffers()))
    inputs = _loss_inputs(kinds)
    ey, ty = em(*[e for e, _ in inputs]), tm(*[t for _, t in inputs])
    assert_same(ey.detach(), ty.detach(), rtol=1e-5, atol=1e-6)
    ey.sum().backward()
    ty.sum().backward()
    for e, t in inputs:
        if t.requires_grad:
            assert_same(e.grad, t.grad, rtol=1e-5, atol=1e-6)


def test_loss_legacy_reduction_warning_and_errors():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        assert enn.L1Loss(size_average=False).reduction == "sum"
    with pytest.warns(UserWarning):
        assert enn.NLLLoss(reduce=False).reduction == "none"
    bad = enn.MSELoss(reduction="foo")
    with pytest.raises(ValueError, match="foo is not a valid value for reduction"):
        bad(ember.ones(2), ember.ones(2))
    with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
        enn.MultiMarginLoss(p=3)
    with pytest.raises(ValueError, match="expected weight to be None or 1D tensor, got 2D instead"):
        enn.MultiMarginLoss(weight=ember.ones(2, 2))
    with pytest.raises(ValueError, match="expected margin to be greater than 0, got 0.0 instead"):
        enn.TripletMarginWithDistanceLoss(margin=0.0)
    with pytest.raises(TypeError):
        enn.GaussianNLLLoss(True)
    with pytest.raises(IndexError):
        enn.CrossEntropyLoss()(ember.ones(2, 3), ember.tensor([0, 7]))


def test_loss_weight_buffers_and_custom_distance():
    w = ember.tensor([1.0, 2.0, 3.0])
    ce = enn.CrossEntropyLoss(weight=w)
    assert ce.weight is w and list(ce.state_dict()) == ["weight"]
    bce = enn.BCEWithLogitsLoss(pos_weight=ember.ones(3))
    assert list(bce._buffers) == ["weight", "pos_weight"] and list(bce.state_dict()) == ["pos_weight"]
    assert bce.weight is None
    ce.load_state_dict({"weight": ember.tensor([3.0, 2.0, 1.0])})
    x, y = ember.tensor([[0.2, 0.1, 0.4]]), ember.tensor([0])
    tce = tnn.CrossEntropyLoss(weight=torch.tensor([3.0, 2.0, 1.0]))
    assert_same(ce(x, y), tce(torch.tensor([[0.2, 0.1, 0.4]]), torch.tensor([0])), rtol=1e-6)
    cos = enn.CosineSimilarity()
    loss = enn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1.0 - cos(a, b))
    tcos = tnn.CosineSimilarity()
    tloss = tnn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1.0 - tcos(a, b))
    (a, ta), (p, tp), (n, tn) = [pair(4, 6, seed=s) for s in (1, 2, 3)]
    assert_same(loss(a, p, n), tloss(ta, tp, tn), rtol=1e-6, atol=1e-6)
    assert repr(loss) == repr(tloss)
    mod = enn.TripletMarginWithDistanceLoss(distance_function=enn.PairwiseDistance(p=1.0))
    tmod = tnn.TripletMarginWithDistanceLoss(distance_function=tnn.PairwiseDistance(p=1.0))
    assert repr(mod) == repr(tmod)
    assert_same(mod(a, p, n), tmod(ta, tp, tn), rtol=1e-6, atol=1e-7)


def test_multilabel_margin_loss_functional_forms_and_errors():
    import ember.nn.functional as EF
    import torch.nn.functional as TF
    x, y = torch.randn(5), torch.tensor([3, 0, -1, 1, 2])
    for red in ("none", "mean", "sum"):
        assert_same(EF.multilabel_margin_loss(_as_ember(x), _as_ember(y), reduction=red),
                    TF.multilabel_margin_loss(x, y, reduction=red), rtol=1e-6, atol=1e-7)
    for bad_t in (torch.tensor([[5, 0, -1, 1, 2]]), torch.tensor([[-2, 0, -1, 1, 2]]), torch.zeros(2, 5).long()):
        with pytest.raises(RuntimeError) as te:
            TF.multilabel_margin_loss(torch.randn(1, 5), bad_t)
        with pytest.raises(RuntimeError) as ee:
            EF.multilabel_margin_loss(ember.randn(1, 5), _as_ember(bad_t))
        assert str(ee.value) == str(te.value)
