"""The layer modules over the functional ops (Conv*, pools, norms, dropout, embeddings, upsampling, padding, fold,
distances) against torch.nn: repr, state_dict keys, bitwise default init, values and gradients in train and eval
mode, running statistics, torch's errors; and seed 002's CNN trained 5 steps in both libraries."""
import pytest
import torch

import ember
import ember.nn as enn
import ember.nn.functional as EF
from conftest import assert_same, outcome

tnn = torch.nn
TF = torch.nn.functional


def both(ctor):
    """The module `ctor` names built by ember and by torch from the same seed."""
    ember.manual_seed(0)
    torch.manual_seed(0)
    return eval("enn." + ctor), eval("tnn." + ctor)


def inputs(spec, seed):
    """(ember, torch) tensors for a spec: a shape (float32 randn, requiring grad) or ("long", high, shape)."""
    g = torch.Generator().manual_seed(seed)
    if spec and spec[0] == "long":
        t = torch.randint(0, spec[1], spec[2], generator=g)
        return ember.from_numpy(t.numpy().copy()), t
    t = torch.randn(*spec, generator=g)
    return ember.from_numpy(t.numpy().copy()).requires_grad_(), t.requires_grad_()


def outputs(out):
    return list(out) if isinstance(out, tuple) else [out]


def assert_state_same(e, t, rtol=0.0):
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        assert_same(es[k], ts[k], check_strides=False, rtol=rtol)


CASES = [
    ("Conv1d(3, 4, 3)", [(2, 3, 9)]),
    ("Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, bias=False)", [(2, 4, 11)]),
    ("Conv1d(3, 4, 4, padding='same', padding_mode='reflect')", [(2, 3, 9)]),
    ("Conv2d(3, 4, 3)", [(2, 3, 8, 7)]),
    ("Conv2d(3, 4, (3, 2), padding='same')", [(2, 3, 8, 7)]),
    ("Conv2d(3, 4, 3, padding='valid')", [(3, 8, 7)]),
    ("Conv2d(3, 4, 3, padding=1, padding_mode='circular')", [(2, 3, 6, 6)]),
    ("Conv2d(3, 4, 3, padding=(1, 2), padding_mode='replicate', stride=(2, 1))", [(2, 3, 6, 6)]),
    ("Conv2d(3, 4, 3, padding=2, padding_mode='reflect')", [(2, 3, 6, 6)]),
    ("Conv3d(2, 4, 3, padding=1)", [(2, 2, 4, 5, 5)]),
    ("ConvTranspose1d(3, 4, 3, stride=2, output_padding=1)", [(2, 3, 5)]),
    ("ConvTranspose2d(4, 6, 3, stride=2, padding=1, groups=2, dilation=1)", [(2, 4, 5, 5)]),
    ("ConvTranspose2d(3, 4, (2, 3), bias=False)", [(3, 5, 5)]),
    ("ConvTranspose3d(2, 3, 2, stride=2)", [(1, 2, 3, 3, 3)]),
    ("MaxPool1d(3, stride=2, padding=1)", [(2, 3, 9)]),
    ("MaxPool2d(2, 2)", [(2, 3, 8, 8)]),
    ("MaxPool2d((3, 2), stride=(2, 1), padding=1, dilation=1, ceil_mode=True)", [(2, 3, 7, 8)]),
    ("MaxPool2d(2, return_indices=True)", [(2, 3, 6, 6)]),
    ("AvgPool1d(3, stride=2, padding=1, count_include_pad=False)", [(2, 3, 9)]),
    ("AvgPool2d(3, stride=2, padding=1, ceil_mode=True, divisor_override=4)", [(2, 3, 8, 8)]),
    ("AdaptiveAvgPool1d(4)", [(2, 3, 9)]),
    ("AdaptiveAvgPool2d((None, 3))", [(2, 3, 7, 8)]),
    ("AdaptiveMaxPool1d(4, return_indices=True)", [(2, 3, 9)]),
    ("AdaptiveMaxPool2d(3)", [(2, 3, 7, 8)]),
    ("LPPool1d(2, 3)", [(2, 3, 9)]),
    ("LPPool2d(3.0, (2, 3), stride=2)", [(2, 3, 8, 8)]),
    ("BatchNorm1d(3)", [(4, 3)]),
    ("BatchNorm1d(3, momentum=None)", [(4, 3, 5)]),
    ("BatchNorm2d(3, affine=False)", [(4, 3, 5, 5)]),
    ("BatchNorm2d(3, track_running_stats=False)", [(4, 3, 5, 5)]),
    ("BatchNorm2d(3, bias=False, eps=1e-3, momentum=0.3)", [(4, 3, 5, 5)]),
    ("BatchNorm3d(2)", [(2, 2, 3, 4, 4)]),
    ("InstanceNorm1d(3)", [(2, 3, 7)]),
    ("InstanceNorm2d(3, affine=True, track_running_stats=True)", [(2, 3, 5, 5)]),
    ("InstanceNorm2d(3, affine=True)", [(3, 5, 5)]),
    ("InstanceNorm3d(2, momentum=None, track_running_stats=True)", [(2, 2, 3, 3, 3)]),
    ("LayerNorm(5)", [(2, 3, 5)]),
    ("LayerNorm([3, 5], elementwise_affine=False)", [(2, 3, 5)]),
    ("LayerNorm((3, 5), bias=False, eps=1e-3)", [(2, 3, 5)]),
    ("GroupNorm(2, 4)", [(2, 4, 3, 3)]),
    ("GroupNorm(1, 4, affine=False)", [(2, 4, 5)]),
    ("RMSNorm(5)", [(2, 3, 5)]),
    ("RMSNorm([3, 5], eps=1e-4, elementwise_affine=False)", [(2, 3, 5)]),
    ("LocalResponseNorm(3, alpha=0.1, beta=0.5, k=2.0)", [(2, 5, 4, 4)]),
    ("Dropout(0.3)", [(4, 8)]),
    ("Dropout1d(0.5)", [(2, 6, 5)]),
    ("Dropout2d(0.25)", [(2, 6, 4, 4)]),
    ("Dropout3d(0.5)", [(2, 4, 2, 3, 3)]),
    ("AlphaDropout(0.2)", [(4, 8)]),
    ("FeatureAlphaDropout(0.4)", [(2, 6, 4, 4)]),
    ("Embedding(10, 3)", [("long", 10, (4, 5))]),
    ("Embedding(10, 3, padding_idx=2, scale_grad_by_freq=True)", [("long", 10, (4, 5))]),
    ("Embedding(10, 3, padding_idx=-3)", [("long", 10, (6,))]),
    ("EmbeddingBag(10, 3)", [("long", 10, (4, 5))]),
    ("EmbeddingBag(10, 3, mode='max', padding_idx=1)", [("long", 10, (4, 5))]),
    ("Upsample(scale_factor=2)", [(2, 3, 4, 5)]),
    ("Upsample(size=(6, 7), mode='bilinear', align_corners=True)", [(2, 3, 4, 5)]),
    ("Upsample(scale_factor=(1.5, 2), mode='bilinear')", [(2, 3, 4, 5)]),
    ("Upsample(scale_factor=2.5, mode='nearest-exact', recompute_scale_factor=True)", [(2, 3, 4, 5)]),
    ("Upsample(size=7, mode='linear')", [(2, 3, 4)]),
    ("Upsample(scale_factor=2, mode='trilinear')", [(1, 2, 2, 3, 3)]),
    ("UpsamplingNearest2d(scale_factor=2)", [(2, 3, 4, 5)]),
    ("UpsamplingBilinear2d(size=(5, 6))", [(2, 3, 4, 5)]),
    ("PixelShuffle(2)", [(2, 8, 3, 3)]),
    ("PixelUnshuffle(2)", [(2, 2, 4, 6)]),
    ("ChannelShuffle(3)", [(2, 6, 2, 2)]),
    ("ZeroPad1d(2)", [(2, 3, 4)]),
    ("ZeroPad2d((1, 0, 2, 1))", [(2, 3, 4, 4)]),
    ("ZeroPad3d(1)", [(1, 2, 2, 2, 2)]),
    ("ConstantPad1d((1, 2), 3)", [(2, 3, 4)]),
    ("ConstantPad2d(1, 2.5)", [(2, 3, 4, 4)]),
    ("ConstantPad3d((1, 0, 0, 1, 1, 0), -1.0)", [(1, 2, 2, 2, 2)]),
    ("ReflectionPad1d(2)", [(2, 3, 5)]),
    ("ReflectionPad2d((1, 2, 0, 1))", [(2, 3, 4, 4)]),
    ("ReflectionPad3d(1)", [(1, 2, 3, 3, 3)]),
    ("ReplicationPad1d((2, 1))", [(2, 3, 5)]),
    ("ReplicationPad2d(2)", [(2, 3, 4, 4)]),
    ("ReplicationPad3d(1)", [(1, 2, 3, 3, 3)]),
    ("CircularPad1d(2)", [(2, 3, 5)]),
    ("CircularPad2d((1, 2, 0, 1))", [(2, 3, 4, 4)]),
    ("CircularPad3d(1)", [(1, 2, 3, 3, 3)]),
    ("Fold((4, 5), 2)", [(2, 12, 12)]),
    ("Fold(5, (2, 3), dilation=1, padding=1, stride=2)", [(2, 12, 9)]),
    ("Unfold((2, 3), padding=1, stride=(1, 2))", [(2, 3, 5, 6)]),
    ("CosineSimilarity(dim=2, eps=1e-6)", [(2, 3, 5), (2, 3, 5)]),
    ("PairwiseDistance(p=1.0, keepdim=True)", [(4, 5), (4, 5)]),
]


@pytest.mark.parametrize("ctor,specs", CASES, ids=[c for c, _ in CASES])
def test_module_matches_torch(ctor, specs):
    e, t = both(ctor)
    assert repr(e) == repr(t)
    # keys, order and bitwise default init; normal_ (Embedding's) differs from torch's in the last bit of a few
    # elements when 16 or more are drawn (src/ops/random.cpp's Box-Muller blocks)
    assert_state_same(e, t, rtol=2e-7 if ctor.startswith("Embedding") else 0.0)
    for training in (True, False):
        e.train(training)
        t.train(training)
        pairs = [inputs(s, seed=i + 1) for i, s in enumerate(specs)]
        ember.manual_seed(7)
        torch.manual_seed(7)
        eo, to = outputs(e(*[p[0] for p in pairs])), outputs(t(*[p[1] for p in pairs]))
        assert len(eo) == len(to)
        for a, b in zip(eo, to):
            assert_same(a.detach(), b.detach(), check_strides=False, rtol=1e-5, atol=1e-5)
        if not eo[0].dtype.is_floating_point:
            continue
        g = torch.randn(to[0].shape, generator=torch.Generator().manual_seed(9))
        (eo[0] * ember.from_numpy(g.numpy().copy())).sum().backward()
        (to[0] * g).sum().backward()
        for (ex, tx) in pairs:
            if tx.grad is not None:
                assert_same(ex.grad, tx.grad, check_strides=False, rtol=1e-4, atol=1e-5)
        for (name, ep), (_, tp) in zip(e.named_parameters(), t.named_parameters()):
            if tp.grad is None:
                assert ep.grad is None, name
            else:
                assert_same(ep.grad, tp.grad, check_strides=False, rtol=1e-4, atol=1e-5)
        e.zero_grad()
        t.zero_grad()
    assert_state_same_close(e, t)


def assert_state_same_close(e, t):
    """After training steps: running statistics and num_batches_tracked as torch's."""
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    for k in ts:
        assert_same(es[k], ts[k], check_strides=False, rtol=1e-5, atol=1e-6)


def test_conv_transpose_output_size():
    e, t = both("ConvTranspose2d(2, 3, 3, stride=2, padding=1)")
    xe, xt = inputs((1, 2, 4, 4), 1)
    for size in ([8, 8], (1, 3, 8, 7), [7, 8]):
        assert_same(e(xe, output_size=size).detach(), t(xt, output_size=size).detach(), check_strides=False,
                    rtol=1e-5, atol=1e-6)
    for size in ([20, 20], [8]):
        (_, ee), (_, te) = outcome(lambda: e(xe, output_size=size)), outcome(lambda: t(xt, output_size=size))
        assert type(ee) is type(te) and str(ee) == str(te), (ee, te)


ERRORS = [
    ("Conv2d(3, 4, 3, groups=0)", None),
    ("Conv2d(3, 4, 3, groups=2)", None),
    ("Conv2d(4, 3, 3, groups=2)", None),
    ("Conv2d(3, 4, 3, padding='full')", None),
    ("Conv2d(3, 4, 3, padding='same', stride=2)", None),
    ("ConvTranspose2d(3, 4, 3, padding_mode='reflect')", None),
    ("Conv2d(3, 4, 3)", (2, 5, 6, 6)),
    ("BatchNorm1d(3)", (2, 3, 4, 5)),
    ("BatchNorm2d(3)", (2, 3)),
    ("BatchNorm3d(3)", (2, 3, 4)),
    ("BatchNorm2d(3)", (1, 3, 1, 1)),
    ("InstanceNorm1d(3)", (2, 3, 4, 5)),
    ("InstanceNorm2d(3)", (2, 3)),
    ("InstanceNorm2d(3, affine=True)", (2, 4, 5, 5)),
    ("GroupNorm(3, 4)", None),
    ("Dropout(1.5)", None),
    ("Dropout2d(-0.1)", None),
    ("Embedding(3, 2, padding_idx=5)", None),
    ("Embedding(3, 2, padding_idx=-5)", None),
    ("ChannelShuffle(2)", (2, 4)),
    ("ChannelShuffle(2)", (1, 5, 2)),
    ("ChannelShuffle(0)", (1, 4, 2)),
    ("Upsample()", (1, 2, 3, 3)),
    ("Upsample(size=3, scale_factor=2)", (1, 2, 3, 3)),
    ("MaxPool2d(2)", (2,)),
]


@pytest.mark.parametrize("ctor,spec", ERRORS, ids=[f"{c}-{s}" for c, s in ERRORS])
def test_errors_match_torch(ctor, spec):
    def run(lib, nn):
        lib.manual_seed(0)
        m = eval("nn." + ctor)
        if spec is not None:
            m(lib.randn(*spec))
    _, ee = outcome(lambda: run(ember, enn))
    _, te = outcome(lambda: run(torch, tnn))
    assert te is not None and ee is not None, (ee, te)
    assert type(ee).__name__ == type(te).__name__, (ee, te)
    if "{" in str(te):  # torch prints a Python set, in hash order
        assert str(ee).split("{")[0] == str(te).split("{")[0]
    elif "size" not in str(te):  # torch.Size vs ember's in the shapes
        assert str(ee) == str(te)


def test_batchnorm_running_stats_and_eval():
    e, t = both("BatchNorm2d(4, momentum=None)")
    for step in range(3):
        xe, xt = inputs((3, 4, 2, 2), step)
        assert_same(e(xe).detach(), t(xt).detach(), check_strides=False, rtol=1e-5, atol=1e-6)
    assert e.num_batches_tracked.item() == 3 and e.num_batches_tracked.dtype == ember.int64
    assert_state_same_close(e, t)
    e.eval()
    t.eval()
    xe, xt = inputs((3, 4, 2, 2), 5)
    assert_same(e(xe).detach(), t(xt).detach(), check_strides=False, rtol=1e-5, atol=1e-6)
    assert e.num_batches_tracked.item() == 3
    e.reset_running_stats()
    assert e.num_batches_tracked.item() == 0 and e.running_var.sum().item() == 4


def test_attributes_as_torch():
    for ctor in ["Conv2d(3, 4, 3, stride=(2, 1), padding='same'.replace('same', 'valid'))", "MaxPool2d(3)",
                 "AvgPool1d(2)", "AdaptiveAvgPool2d((None, 2))", "Upsample(scale_factor=2)",
                 "ConstantPad2d(1, 2)", "BatchNorm2d(3, momentum=None)", "Embedding(5, 2, padding_idx=-1)",
                 "Fold(4, 2)", "LayerNorm(3)", "PairwiseDistance()"]:
        e, t = both(ctor)
        for name in ["kernel_size", "stride", "padding", "dilation", "output_size", "scale_factor", "value",
                     "momentum", "padding_idx", "normalized_shape", "num_features", "norm", "in_channels",
                     "padding_mode", "groups", "ceil_mode", "eps", "mode"]:
            if hasattr(t, name):
                assert getattr(e, name) == getattr(t, name), (ctor, name)


def test_embedding_from_pretrained_and_max_norm():
    w = torch.randn(5, 3)
    we = ember.from_numpy(w.numpy().copy())
    e = enn.Embedding.from_pretrained(we, padding_idx=1)
    t = tnn.Embedding.from_pretrained(w.clone(), padding_idx=1)
    assert repr(e) == repr(t) and e.weight.requires_grad is False
    assert e.weight.data_ptr() == we.data_ptr()  # shares the given tensor's storage
    idx = torch.tensor([[0, 1, 4], [2, 2, 3]])
    assert_same(e(ember.from_numpy(idx.numpy().copy())), t(idx), check_strides=False)
    e2 = enn.Embedding.from_pretrained(we.clone(), freeze=False, max_norm=0.5)
    t2 = tnn.Embedding.from_pretrained(w.clone(), freeze=False, max_norm=0.5)
    assert e2.weight.requires_grad
    assert_same(e2(ember.from_numpy(idx.numpy().copy())).detach(), t2(idx).detach(), check_strides=False, rtol=1e-6,
                atol=1e-6)
    assert_same(e2.weight.detach(), t2.weight.detach(), check_strides=False, rtol=1e-6, atol=1e-6)  # renormed
    bag_e = enn.EmbeddingBag.from_pretrained(we, mode="sum")
    bag_t = tnn.EmbeddingBag.from_pretrained(w, mode="sum")
    off = torch.tensor([0, 2])
    flat = torch.tensor([0, 1, 4, 2])
    assert_same(bag_e(ember.from_numpy(flat.numpy().copy()), ember.from_numpy(off.numpy().copy())),
                bag_t(flat, off), check_strides=False, rtol=1e-6, atol=1e-6)
    _, ee = outcome(lambda: enn.Embedding.from_pretrained(ember.randn(3)))
    assert isinstance(ee, AssertionError)


def test_subclass_from_python():
    class Scaled(enn.Conv2d):
        def forward(self, x):
            return super().forward(x) * 2

    ember.manual_seed(0)
    m = Scaled(2, 3, 3, padding=1)
    assert repr(m).startswith("Scaled(2, 3, kernel_size=(3, 3)")
    x = ember.randn(1, 2, 4, 4)
    assert ember.equal(m(x), EF.conv2d(x, m.weight, m.bias, padding=1) * 2)
    assert [k for k, _ in m.named_parameters()] == ["weight", "bias"]


def test_dtype_and_to():
    e = enn.BatchNorm1d(3, dtype=ember.float64)
    assert e.weight.dtype == ember.float64 and e.running_mean.dtype == ember.float64
    assert e.num_batches_tracked.dtype == ember.int64
    c = enn.Conv1d(2, 3, 2, dtype=ember.float64)
    assert c.weight.dtype == ember.float64
    c.float()
    assert c.weight.dtype == ember.float32


# ---- seed 002's CNN (CNNClassifier) in both libraries: identical weights, the same 5 Adam steps

class _CNN:
    """seed 002's CNNClassifier for library `nn` (ReLU as a functional inside a Module: nn.ReLU lives elsewhere)."""

    @staticmethod
    def build(nn, F, num_classes=10):
        class ReLU(nn.Module):
            def forward(self, x):
                return F.relu(x, inplace=True)

        class CNNClassifier(nn.Module):
            def __init__(self):
                super().__init__()
                self.features = nn.Sequential(
                    nn.Conv2d(3, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), ReLU(),
                    nn.Conv2d(32, 32, kernel_size=3, padding=1), nn.BatchNorm2d(32), ReLU(),
                    nn.MaxPool2d(2, 2), nn.Dropout2d(0.25),
                    nn.Conv2d(32, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), ReLU(),
                    nn.Conv2d(64, 64, kernel_size=3, padding=1), nn.BatchNorm2d(64), ReLU(),
                    nn.MaxPool2d(2, 2), nn.Dropout2d(0.25),
                    nn.Conv2d(64, 128, kernel_size=3, padding=1), nn.BatchNorm2d(128), ReLU(),
                    nn.MaxPool2d(2, 2), nn.Dropout2d(0.25))
                self.classifier = nn.Sequential(
                    nn.Flatten(), nn.Linear(128 * 4 * 4, 256), ReLU(), nn.Dropout(0.5),
                    nn.Linear(256, 128), ReLU(), nn.Dropout(0.5), nn.Linear(128, num_classes))

            def forward(self, x):
                return self.classifier(self.features(x))

        return CNNClassifier()


def _train_seed_cnn(dtype, optimizer, batch, steps=5, **opt_args):
    """seed 002's CNN built in both libraries from one seed, trained `steps` steps on the same data with the same
    dropout masks; returns the two models and their losses."""
    ember.manual_seed(42)
    torch.manual_seed(42)
    e, t = _CNN.build(enn, EF), _CNN.build(tnn, TF)
    assert_state_same(e, t)  # bitwise equal weights
    e.to(getattr(ember, dtype))
    t.to(getattr(torch, dtype))
    oe = getattr(ember.optim, optimizer)(e.parameters(), **opt_args)
    ot = getattr(torch.optim, optimizer)(t.parameters(), **opt_args)
    g = torch.Generator().manual_seed(3)
    losses = []
    for step in range(steps):
        x = torch.randn(batch, 3, 32, 32, generator=g).to(getattr(torch, dtype))
        y = torch.randint(0, 10, (batch,), generator=g)
        ember.manual_seed(100 + step)
        torch.manual_seed(100 + step)
        le = EF.cross_entropy(e(ember.from_numpy(x.numpy().copy())), ember.from_numpy(y.numpy().copy()))
        lt = TF.cross_entropy(t(x), y)
        losses.append((le.item(), lt.item()))
        for o, loss in ((oe, le), (ot, lt)):
            o.zero_grad()
            loss.backward()
            o.step()
    return e, t, losses


def test_seed_cnn_five_adam_steps_float64():
    # Adam's first steps move every weight by about lr * sign(grad), so float32 rounding differences in
    # near-zero gradients (the conv biases ahead of BatchNorm get only rounding noise) become lr-sized weight
    # differences; in float64 the two libraries' training runs agree far below the 1e-5 asked.
    e, t, losses = _train_seed_cnn("float64", "Adam", 16, lr=1e-3)
    for step, (le, lt) in enumerate(losses):
        assert abs(le - lt) <= 1e-9, (step, le, lt)
    assert_state_same_close(e, t)


def test_seed_cnn_five_sgd_steps_float32():
    # Five SGD steps with momentum are chaotic: float32 rounding, which differs with the kernels a CPU gets and the
    # thread count, can move the loss by 1e-4 at step 4 (torch's own float32 run on an AVX2-only Zen 3 does, against
    # torch's float64 run). So both float32 runs are judged against torch's float64 run: Ember's within 1e-5 of it,
    # or no further than torch's float32 run is.
    e, t, losses = _train_seed_cnn("float32", "SGD", 64, lr=0.05, momentum=0.9)
    _, t64, losses64 = _train_seed_cnn("float64", "SGD", 64, lr=0.05, momentum=0.9)
    for step, ((le, lt), (_, lt64)) in enumerate(zip(losses, losses64)):
        assert abs(le - lt64) <= max(1e-5, 2 * abs(lt - lt64)), (step, le, lt, lt64)
    for m in (e, t, t64):
        m.eval()
    x = torch.randn(4, 3, 32, 32, generator=torch.Generator().manual_seed(8))
    with ember.no_grad(), torch.no_grad():
        out = torch.from_numpy(e(ember.from_numpy(x.numpy().copy())).numpy()).double()
        out_t, out64 = t(x).double(), t64(x.double())
    assert (out - out64).abs().max() <= max(1e-4, 2 * (out_t - out64).abs().max())


GRADCHECK = [
    ("Conv2d(2, 3, 3, stride=2, padding=1, padding_mode='reflect', dtype=ember.float64)", (1, 2, 5, 5)),
    ("ConvTranspose1d(2, 2, 3, stride=2, dtype=ember.float64)", (1, 2, 4)),
    ("BatchNorm1d(3, dtype=ember.float64)", (4, 3)),
    ("GroupNorm(2, 4, dtype=ember.float64)", (2, 4, 3)),
    ("LayerNorm(4, dtype=ember.float64)", (2, 4)),
    ("LPPool1d(2, 2)", (1, 2, 6)),
    ("Upsample(scale_factor=2, mode='bilinear')", (1, 1, 3, 3)),
    ("ReplicationPad2d((1, 0, 2, 1))", (1, 2, 3, 3)),
    ("Fold(3, 2)", (1, 8, 4)),
]


@pytest.mark.parametrize("ctor,shape", GRADCHECK, ids=[c for c, _ in GRADCHECK])
def test_gradcheck_float64(ctor, shape):
    ember.manual_seed(0)
    m = eval("enn." + ctor)
    x = (ember.rand(*shape, dtype=ember.float64) + 0.5).requires_grad_()  # positive: LPPool's root is smooth there
    params = [p for p in m.parameters()]
    assert ember.autograd.gradcheck(lambda x, *ps: m(x), (x, *params))
