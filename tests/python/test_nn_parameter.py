"""nn.Parameter and the Python identity of tensors, against torch."""
import copy
import gc
import pickle

import pytest
import torch

import ember


@pytest.mark.parametrize("lib", [torch, ember])
def test_parameter_types_like_torch(lib):
    p = lib.nn.Parameter(lib.ones(2))
    assert isinstance(p, lib.Tensor) and type(p).__name__ == "Parameter"
    assert p.is_leaf and p.requires_grad and p.grad_fn is None
    # results of ops are plain tensors; copies and in-place results stay Parameters
    assert [type(r).__name__ for r in (p.clone(), p * 2, p.detach(), p.data)] == ["Tensor"] * 4
    assert type(copy.deepcopy(p)).__name__ == "Parameter"
    q = pickle.loads(pickle.dumps(p))
    assert type(q).__name__ == "Parameter" and q.requires_grad and q.tolist() == [1.0, 1.0]
    with lib.no_grad():
        assert p.add_(0) is p


def test_parameter_repr_and_storage():
    for e, t in [(ember.nn.Parameter(ember.ones(2)), torch.nn.Parameter(torch.ones(2))),
                 (ember.nn.Parameter(ember.ones(2), requires_grad=False),
                  torch.nn.Parameter(torch.ones(2), requires_grad=False)),
                 (ember.nn.Parameter(), torch.nn.Parameter())]:
        assert repr(e) == repr(t) and str(e) == str(t)
    x = ember.arange(3.)
    p = ember.nn.Parameter(x)
    assert p.data_ptr() == x.data_ptr() and p is not x
    assert ember.nn.Parameter(p) is not p


def test_parameter_of_integers_raises_like_torch():
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        ember.nn.Parameter(ember.ones(2, dtype=ember.int64))
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        torch.nn.Parameter(torch.ones(2, dtype=torch.int64))
    assert not ember.nn.Parameter(ember.ones(2, dtype=ember.int64), requires_grad=False).requires_grad


@pytest.mark.parametrize("lib", [torch, ember])
def test_identity_like_torch(lib):
    x = lib.ones(3, requires_grad=True)
    (x * 2).sum().backward()
    assert x.grad is x.grad
    t = lib.ones(2)
    assert t.requires_grad_() is t and t.to(lib.float32) is t
    assert t.view(2) is not t and t[...] is not t and t.detach() is not t
    p = lib.nn.Parameter(lib.ones(2))
    (p * 3).sum().backward()
    g = p.grad
    assert p.grad is g and {p: 1}[p] == 1


@pytest.mark.parametrize("lib", [torch, ember])
def test_a_parameter_held_only_by_cpp_comes_back_as_parameter(lib):
    y = lib.ones(2, requires_grad=True)
    y.grad = lib.nn.Parameter(lib.full((2,), 5.0))  # its Python object dies here; C++ keeps the tensor
    gc.collect()
    assert type(y.grad).__name__ == "Parameter" and y.grad.tolist() == [5.0, 5.0]
    assert y.grad is y.grad
