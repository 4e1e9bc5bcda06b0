# The PyTorch program that prints what autograd.cpp must print (expected/autograd.txt).
import torch

x = torch.tensor(2.0, dtype=torch.float64, requires_grad=True)
y = x.pow(2) + 3 * x + 1
print(f"y = {y.detach()!s}, from {y.grad_fn.name()}")
y.backward()
print(f"dy/dx at 2: {x.grad!s}")

torch.manual_seed(0)
a = torch.randn(3, requires_grad=True)
w = torch.randn(3, requires_grad=True)
z = a.dot(w).pow(2)
z.backward()
print(f"dz/da = 2 (a.w) w: {a.grad}\nby hand:          {2 * a.dot(w).detach() * w.detach()}")

a.grad.zero_()
for _ in range(3):
    (a * 2).sum().backward()
print(f"three backward calls accumulate: {a.grad}")
with torch.no_grad():
    t = a * 2
    print(f"under NoGradGuard requires_grad = {str(t.requires_grad).lower()}")
print(f"detach: requires_grad = {str((a * 2).detach().requires_grad).lower()}")

u = torch.tensor([0.0, 1.0], dtype=torch.float64, requires_grad=True)
first = torch.autograd.grad([u.sin().sum()], [u], create_graph=True)[0]
second = torch.autograd.grad([first.sum()], [u])[0]
print(f"cos(u): {first.detach()}\n-sin(u): {second}")

leaf = torch.ones(2, 2, requires_grad=True)
out = (leaf * leaf).mean()
print(f"is_leaf {str(leaf.is_leaf).lower()} / {str(out.is_leaf).lower()}, grad of mean(leaf^2): ", end="")
out.backward()
print(leaf.grad)
