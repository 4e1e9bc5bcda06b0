"""The vision pipeline: one epoch of Fashion-MNIST's training set (60,000 images) through RandomCrop(28, padding=4)
and Normalize, in shuffled batches of 64.

Ember: the C++ dataset (FashionMNIST.cpp_dataset) fills each batch in C++ (uint8 -> float, crop, normalise),
batched by the C++ DataLoader (ember._C._data) where it is built in; otherwise shuffled index batches go straight to
get_batch, with workers > 0 from that many Python threads (the GIL is released inside get_batch). Torch: its
DataLoader over an equivalent torch Dataset that does the same per-sample work with torch tensor ops (torchvision
itself cannot be installed here), num_workers 0 and 2 (persistent workers; the first epoch warms up).

Prints images/s, medians of several epochs, and ember's speed as a ratio to torch's. Target (issue 13): >= 3x.
"""
import argparse
import statistics
import time
from concurrent.futures import ThreadPoolExecutor

import torch
import torch.nn.functional as TF

import ember
from ember.vision import datasets, transforms as T

MEAN, STD, BATCH = 0.2860, 0.3530, 64


class TorchFashion(torch.utils.data.Dataset):
    """What ToTensor + RandomCrop(28, padding=4) + Normalize do to one image, with torch tensor ops."""

    def __init__(self, images, labels):
        self.images, self.labels = images, labels

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        x = self.images[index].float().div(255).unsqueeze(0)
        x = TF.pad(x, (4, 4, 4, 4))
        i = int(torch.randint(0, 9, size=(1,)).item())
        j = int(torch.randint(0, 9, size=(1,)).item())
        x = x[:, i:i + 28, j:j + 28]
        return (x - MEAN) / STD, int(self.labels[index])


def ember_epoch(dataset, workers):
    data = getattr(ember._C, "_data", None)
    if data is not None and isinstance(dataset, data.Dataset):  # the C++ DataLoader: batches made in its threads
        for _ in data.DataLoader(dataset, batch_size=BATCH, shuffle=True, num_workers=workers):
            pass
        return
    order = ember.randperm(len(dataset)).tolist()
    batches = [order[k:k + BATCH] for k in range(0, len(order), BATCH)]
    if workers == 0:
        for b in batches:
            dataset.get_batch(b)
    else:
        with ThreadPoolExecutor(workers) as pool:
            for _ in pool.map(dataset.get_batch, batches):
                pass


def torch_epoch(loader):
    for _ in loader:
        pass


def median_rate(run, n, epochs):
    times = []
    for _ in range(epochs):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return n / statistics.median(times)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--root", default=None, help="Fashion-MNIST folder (default: Debian's package)")
    args = parser.parse_args()
    train = datasets.FashionMNIST(args.root, train=True)
    n = len(train)
    cpp = train.cpp_dataset(T.Compose([T.ToTensor(), T.RandomCrop(28, padding=4), T.Normalize((MEAN,), (STD,))]))
    tds = TorchFashion(torch.from_numpy(train.data.numpy().copy()), torch.from_numpy(train.targets.numpy().copy()))
    for workers in (0, 2):
        e_rate = median_rate(lambda: ember_epoch(cpp, workers), n, args.epochs)
        loader = torch.utils.data.DataLoader(tds, batch_size=BATCH, shuffle=True, num_workers=workers,
                                             persistent_workers=workers > 0)
        torch_epoch(loader)  # warm-up: starts the workers
        t_rate = median_rate(lambda: torch_epoch(loader), n, args.epochs)
        print(f"vision pipeline, num_workers={workers}: ember {e_rate:,.0f} img/s, torch {t_rate:,.0f} img/s, "
              f"ratio {e_rate / t_rate:.1f}x")


if __name__ == "__main__":
    main()
