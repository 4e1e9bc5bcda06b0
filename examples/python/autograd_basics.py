"""The seed documents' autograd examples, run with Ember.

    python examples/python/autograd_basics.py            # import ember as torch
    python examples/python/autograd_basics.py --torch    # the same program on PyTorch

Graph nodes and their names, backward, accumulation, no_grad/detach, autograd.grad and higher
derivatives, a custom Function, and gradient checkpointing. The output is identical with either
library.
"""
import sys

if "--torch" in sys.argv:
    import torch
    from torch.utils.checkpoint import checkpoint
else:
    import ember as torch
    from ember.utils.checkpoint import checkpoint


def section(title):
    print(f"\n== {title} ==")


section("Autograd basics")
x = torch.tensor(2.0, requires_grad=True)
print(f"x: {x}")
print(f"x.grad_fn: {x.grad_fn}")
y = x ** 2 + 3 * x + 1
print(f"y: {y}")
print(f"y.grad_fn: {type(y.grad_fn).__name__ if hasattr(y.grad_fn, '__dict__') else y.grad_fn.name()}")
print(f"next_functions: {[(f.name() if f else None, i) for f, i in y.grad_fn.next_functions]}")
y.backward()
print(f"dy/dx at x=2: {x.grad}")

section("One line of autograd")
x = torch.tensor(2.0, requires_grad=True)
z = (x ** 2 + 5) * 3
z.backward()
print(f"Gradient of z with respect to x: {x.grad}")

section("Dot product")
torch.manual_seed(0)
x = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
y = torch.dot(x, w)
z = y ** 2
z.backward()
print(f"dz/dx = 2y * w = {x.grad}")
print(f"dz/dw = 2y * x = {w.grad}")
print(f"manual: {2 * y.detach() * w}")

section("Gradient control")
x.grad.zero_()
with torch.no_grad():
    y = x * 2
print(f"no grad: {y.grad_fn}, requires_grad={y.requires_grad}")
print(f"detached: {(x * 2).detach().requires_grad}")
for _ in range(3):
    (x * 2).sum().backward()
print(f"after three backward calls: {x.grad}")

section("A mean and its gradient")
a = torch.tensor([1, 2, 3], dtype=torch.float, requires_grad=True)
c = (a + torch.tensor([1, 0, 1], dtype=torch.float)).mean()
print(c)
c.backward()
print(a.grad)

section("Higher derivatives")
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
(g,) = torch.autograd.grad((x ** 3).sum(), x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
print(f"d/dx x^3 = {g}")
print(f"d2/dx2 x^3 = {gg}")

section("A custom Function")


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return t * t

    @staticmethod
    def backward(ctx, grad):
        (t,) = ctx.saved_tensors
        return 2 * t * grad


x = torch.tensor([1.5, -2.0], requires_grad=True)
Square.apply(x).sum().backward()
print(f"d/dx Square(x) = {x.grad}")

section("Gradient checkpointing")
torch.manual_seed(1)
w = torch.randn(4, 4, requires_grad=True)
inp = torch.randn(2, 4, requires_grad=True)
out = checkpoint(lambda t: (t @ w).tanh() @ w, inp, use_reentrant=True)
out.sum().backward()
print(f"input grad: {inp.grad}")
