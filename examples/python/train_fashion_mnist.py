"""Ember's main job: train seed 002's CNN on Fashion-MNIST and report.

The script is plain PyTorch code run with `import ember as torch`; `--backend torch` runs the same script on real
PyTorch for comparison. It shows a progress bar per epoch, a one-line summary per epoch, and writes the best and the
last checkpoint (resume with --resume), loss/accuracy curves and a confusion matrix into one output folder.

    python3 examples/python/train_fashion_mnist.py [--epochs 4] [--backend ember|torch] [--out runs/...]
"""
import argparse
import functools
import importlib
import os
import sys
import time
from types import SimpleNamespace

MEAN, STD = 0.2860, 0.3530  # Fashion-MNIST's training-set pixel statistics
DEFAULT_ROOT = "/usr/share/datasets/fashion-mnist"  # Debian's dataset-fashion-mnist package


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--epochs", type=int, default=6)
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-3, help="peak learning rate of the one-cycle schedule")
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--width", type=int, default=16, help="channels of the first block (seed 002: 32)")
    p.add_argument("--dropout", type=float, default=0.1, help="the classifier's dropout (seed 002: 0.5)")
    p.add_argument("--dropout2d", type=float, default=0.1, help="the conv blocks' channel dropout (seed 002: 0.25)")
    p.add_argument("--workers", type=int, default=2, help="DataLoader workers")
    p.add_argument("--threads", type=int, default=os.cpu_count(), help="compute threads")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--data", default=DEFAULT_ROOT, help="folder with the Fashion-MNIST IDX files")
    p.add_argument("--out", default=None, help="output folder (default: runs/fashion_mnist-<backend>)")
    p.add_argument("--resume", action="store_true", help="continue from the output folder's last checkpoint")
    p.add_argument("--stop-after", type=int, default=None, metavar="EPOCH",
                   help="stop after this epoch (continue later with --resume)")
    p.add_argument("--backend", choices=("ember", "torch"), default="ember")
    p.add_argument("--device", default="cpu", help="where the model trains: cpu, cuda, cuda:1 ...")
    p.add_argument("--limit-batches", type=int, default=None,
                   help="stop each epoch and each evaluation after this many batches (a quick check)")
    p.add_argument("--no-progress", action="store_true", help="no progress bars (summary lines only)")
    args = p.parse_args(argv)
    args.out = args.out or os.path.join("runs", f"fashion_mnist-{args.backend}")
    return args


def load_backend(name):
    """The framework as `torch`, its nn and its data utilities, and Fashion-MNIST datasets built with them."""
    torch = importlib.import_module("ember" if name == "ember" else "torch")
    nn = importlib.import_module(torch.__name__ + ".nn")
    data = importlib.import_module(torch.__name__ + ".utils.data")
    return SimpleNamespace(name=name, torch=torch, nn=nn, data=data)


def fashion_mnist(be, root, train):
    """torchvision's FashionMNIST with the usual transforms: random crop (padding 2) and flip when training."""
    if be.name == "ember":
        from ember.vision import datasets, transforms as T
    else:
        try:
            from torchvision import datasets, transforms as T
        except (ImportError, RuntimeError):  # torchvision does not install beside torch 2.13 here
            return TorchFashionMNIST(be.torch, root, train)
    augment = [T.RandomCrop(28, padding=2), T.RandomHorizontalFlip()] if train else []
    tf = T.Compose(augment + [T.ToTensor(), T.Normalize((MEAN,), (STD,))])
    try:
        return datasets.FashionMNIST(root, train=train, transform=tf)
    except RuntimeError:  # torchvision looks in root/FashionMNIST/raw; Debian's package keeps the files in root
        if be.name == "ember":
            raise
        return TorchFashionMNIST(be.torch, root, train)


def TorchFashionMNIST(torch, root, train):
    """torchvision's FashionMNIST + RandomCrop/RandomHorizontalFlip/ToTensor/Normalize per sample, in torch ops."""
    import gzip
    import numpy as np

    def idx(name):
        with gzip.open(os.path.join(root, name + ".gz")) as f:
            raw = f.read()
        dims = raw[3]
        shape = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(dims)]
        return torch.from_numpy(np.frombuffer(raw, np.uint8, offset=4 + 4 * dims).reshape(shape).copy())

    prefix = "train" if train else "t10k"
    images, labels = idx(f"{prefix}-images-idx3-ubyte"), idx(f"{prefix}-labels-idx1-ubyte").long()

    class Dataset(torch.utils.data.Dataset):
        def __len__(self):
            return len(labels)

        def __getitem__(self, i):
            x = images[i].float().div(255).unsqueeze(0)
            if train:
                x = torch.nn.functional.pad(x, (2, 2, 2, 2))
                top, left = torch.randint(0, 5, (2,)).tolist()
                x = x[:, top:top + 28, left:left + 28]
                if torch.rand(()) < 0.5:
                    x = x.flip(-1)
            return (x - MEAN) / STD, int(labels[i])

    return Dataset()


def cnn_classifier(nn, width=32, dropout=0.5, dropout2d=0.25, num_classes=10):
    """Seed 002's CNNClassifier for 1x28x28 images: three conv blocks (28 -> 14 -> 7 -> 3) and an MLP head."""

    def block(c_in, c_out, convs):
        layers = []
        for i in range(convs):
            layers += [nn.Conv2d(c_in if i == 0 else c_out, c_out, 3, padding=1), nn.BatchNorm2d(c_out),
                       nn.ReLU(inplace=True)]
        return layers + [nn.MaxPool2d(2, 2), nn.Dropout2d(dropout2d)]

    class CNNClassifier(nn.Module):
        def __init__(self):
            super().__init__()
            w = width
            self.features = nn.Sequential(*block(1, w, 2), *block(w, 2 * w, 2), *block(2 * w, 4 * w, 1))
            self.classifier = nn.Sequential(
                nn.Flatten(), nn.Linear(4 * w * 3 * 3, 256), nn.ReLU(inplace=True), nn.Dropout(dropout),
                nn.Linear(256, 128), nn.ReLU(inplace=True), nn.Dropout(dropout), nn.Linear(128, num_classes))

        def forward(self, x):
            return self.classifier(self.features(x))

    return CNNClassifier()


def progress(iterable, total, desc, enabled):
    if enabled:
        try:
            from tqdm import tqdm
            return tqdm(iterable, total=total, desc=desc, leave=False, dynamic_ncols=True, file=sys.stdout,
                        disable=None)  # None: no bar when stdout is not a terminal
        except ImportError:
            pass
    return iterable


class Trainer:
    """Model, optimizer, schedule and data for one run; train_epoch/evaluate return plain numbers."""

    def __init__(self, args, be):
        self.args, self.be = args, be
        torch, nn = be.torch, be.nn
        torch.set_num_threads(args.threads)
        torch.manual_seed(args.seed)
        train_set, test_set = fashion_mnist(be, args.data, True), fashion_mnist(be, args.data, False)
        self.device = torch.device(args.device)
        # batches are assembled on the CPU; for a GPU they come in pinned memory and move asynchronously
        loader = functools.partial(be.data.DataLoader, num_workers=args.workers, persistent_workers=args.workers > 0,
                                   pin_memory=self.device.type == "cuda")
        self.train_loader = loader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True)
        self.test_loader = loader(test_set, batch_size=1000)
        self.model = cnn_classifier(nn, args.width, args.dropout, args.dropout2d).to(self.device)
        self.loss_fn = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
        steps = self.steps_per_epoch() * args.epochs
        self.scheduler = torch.optim.lr_scheduler.OneCycleLR(self.optimizer, max_lr=args.lr, total_steps=steps)

    def steps_per_epoch(self):
        n = len(self.train_loader)
        return min(n, self.args.limit_batches) if self.args.limit_batches else n

    def train_epoch(self, desc="train"):
        torch, model = self.be.torch, self.model
        model.train()
        total_loss = correct = seen = 0
        bar = progress(self.train_loader, self.steps_per_epoch(), desc, not self.args.no_progress)
        start = time.perf_counter()
        for step, (images, labels) in enumerate(bar):
            if step == self.steps_per_epoch():
                break
            images, labels = self.to_device(images, labels)
            self.optimizer.zero_grad()
            logits = model(images)
            loss = self.loss_fn(logits, labels)
            loss.backward()
            self.optimizer.step()
            self.scheduler.step()
            n = labels.shape[0]
            total_loss += loss.item() * n
            correct += (logits.argmax(1) == labels).sum().item()
            seen += n
            if hasattr(bar, "set_postfix") and step % 10 == 0:
                bar.set_postfix(loss=f"{total_loss / seen:.3f}", acc=f"{100 * correct / seen:.1f}%",
                                img_s=f"{seen / (time.perf_counter() - start):.0f}")
        return total_loss / seen, correct / seen, seen / (time.perf_counter() - start)

    def evaluate(self):
        """Test loss, accuracy and the 10x10 confusion matrix (rows: true class, columns: predicted)."""
        torch, model = self.be.torch, self.model
        model.eval()
        total_loss = seen = 0
        confusion = torch.zeros(10, 10, dtype=torch.int64, device=self.device)
        with torch.no_grad():
            for step, (images, labels) in enumerate(self.test_loader):
                if step == self.args.limit_batches:
                    break
                images, labels = self.to_device(images, labels)
                logits = model(images)
                total_loss += self.loss_fn(logits, labels).item() * labels.shape[0]
                seen += labels.shape[0]
                confusion += torch.bincount(labels * 10 + logits.argmax(1), minlength=100).view(10, 10)
        return total_loss / seen, confusion.diag().sum().item() / seen, confusion.cpu()

    def to_device(self, images, labels):
        return images.to(self.device, non_blocking=True), labels.to(self.device, non_blocking=True)

    def checkpoint(self, epoch, history):
        return {"epoch": epoch, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict(),
                "scheduler": self.scheduler.state_dict(), "rng": self.be.torch.get_rng_state(),
                "history": history, "args": vars(self.args)}

    def restore(self, state):
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.scheduler.load_state_dict(state["scheduler"])
        self.be.torch.set_rng_state(state["rng"])
        return state["epoch"], state["history"]


def save_plots(out, history, confusion, classes):
    """curves.png (loss and accuracy per epoch) and confusion.png (test set, last epoch)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    epochs = [h["epoch"] for h in history]
    fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 4))
    ax_loss.plot(epochs, [h["train_loss"] for h in history], "o-", label="train")
    ax_loss.plot(epochs, [h["test_loss"] for h in history], "o-", label="test")
    ax_loss.set(xlabel="epoch", ylabel="cross-entropy loss", title="Loss")
    ax_acc.plot(epochs, [100 * h["train_acc"] for h in history], "o-", label="train")
    ax_acc.plot(epochs, [100 * h["test_acc"] for h in history], "o-", label="test")
    ax_acc.set(xlabel="epoch", ylabel="accuracy (%)", title="Accuracy")
    for ax in (ax_loss, ax_acc):
        ax.legend()
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(os.path.join(out, "curves.png"), dpi=100)
    plt.close(fig)

    fig, ax = plt.subplots(figsize=(7, 6))
    ax.imshow(confusion, cmap="Blues")
    for i in range(10):
        for j in range(10):
            ax.text(j, i, confusion[i][j], ha="center", va="center", fontsize=7,
                    color="white" if confusion[i][j] > max(map(max, confusion)) / 2 else "black")
    ax.set_xticks(range(10), classes, rotation=45, ha="right")
    ax.set_yticks(range(10), classes)
    ax.set(xlabel="predicted", ylabel="true", title="Confusion matrix (test set)")
    fig.tight_layout()
    fig.savefig(os.path.join(out, "confusion.png"), dpi=100)
    plt.close(fig)


CLASSES = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag", "Ankle boot"]


def main(argv=None):
    args = parse_args(argv)
    be = load_backend(args.backend)
    os.makedirs(args.out, exist_ok=True)
    trainer = Trainer(args, be)
    last_path, best_path = os.path.join(args.out, "last.pt"), os.path.join(args.out, "best.pt")
    first_epoch, history = 1, []
    if args.resume and os.path.exists(last_path):
        state = be.torch.load(last_path, weights_only=False)
        if state["args"]["epochs"] != args.epochs:
            sys.exit(f"{last_path} is a run of {state['args']['epochs']} epochs (its one-cycle schedule spans them): "
                     f"resume it with --epochs {state['args']['epochs']}")
        done, history = trainer.restore(state)
        first_epoch = done + 1
        print(f"resumed from {last_path} after epoch {done}")
    print(f"{be.name} {be.torch.__version__}: seed 002's CNN (width {args.width}) on Fashion-MNIST, "
          f"{args.epochs} epochs of {trainer.steps_per_epoch()} batches of {args.batch_size} on {args.device}, "
          f"{args.threads} threads")
    start = time.perf_counter()
    confusion = None
    for epoch in range(first_epoch, min(args.stop_after or args.epochs, args.epochs) + 1):
        epoch_start = time.perf_counter()
        train_loss, train_acc, rate = trainer.train_epoch(f"epoch {epoch}/{args.epochs}")
        test_loss, test_acc, confusion = trainer.evaluate()
        history.append(dict(epoch=epoch, train_loss=train_loss, train_acc=train_acc, test_loss=test_loss,
                            test_acc=test_acc, seconds=time.perf_counter() - epoch_start, images_per_s=rate))
        state = trainer.checkpoint(epoch, history)
        be.torch.save(state, last_path)
        if test_acc >= max(h["test_acc"] for h in history):
            be.torch.save(state, best_path)
        print(f"epoch {epoch}/{args.epochs}  train loss {train_loss:.4f}  train acc {100 * train_acc:.2f}%  "
              f"test loss {test_loss:.4f}  test acc {100 * test_acc:.2f}%  {history[-1]['seconds']:.1f} s "
              f"({rate:.0f} img/s)", flush=True)
    if not history:
        print(f"nothing to do: {last_path} already holds {args.epochs} epochs")
        return
    if confusion is not None:
        save_plots(args.out, history, confusion.tolist(), CLASSES)
    best = max(history, key=lambda h: h["test_acc"])
    print(f"test accuracy {100 * history[-1]['test_acc']:.2f}% (best {100 * best['test_acc']:.2f}% at epoch "
          f"{best['epoch']}); {time.perf_counter() - start:.0f} s of training and evaluation; "
          f"checkpoints and plots in {args.out}")


if __name__ == "__main__":
    main()
