"""ember.vision.datasets on small files in the real formats, written here: IDX (struct, gzipped or not), CIFAR's
pickled batches (pickle of numpy arrays, as the real files are), image folders (PNG / JPEG through Pillow)."""
import gzip
import os
import pickle
import struct
from pathlib import Path

import numpy as np
import pytest
import torch

import ember
from ember.vision import datasets, transforms as T

rng = np.random.default_rng(0)


def write_idx(path, array, compress):
    codes = {np.uint8: 0x08, np.int8: 0x09, np.int16: 0x0B, np.int32: 0x0C, np.float32: 0x0D, np.float64: 0x0E}
    header = struct.pack(">BBBB", 0, 0, codes[array.dtype.type], array.ndim)
    header += struct.pack(f">{array.ndim}I", *array.shape)
    payload = header + array.astype(array.dtype.newbyteorder(">")).tobytes()
    with (gzip.open if compress else open)(path, "wb") as f:
        f.write(payload)


def make_mnist(folder, n=12, compress=True):
    os.makedirs(folder, exist_ok=True)
    images = rng.integers(0, 256, (n, 28, 28)).astype(np.uint8)
    labels = rng.integers(0, 10, n).astype(np.uint8)
    suffix = ".gz" if compress else ""
    for split in ("train", "t10k"):
        write_idx(os.path.join(folder, f"{split}-images-idx3-ubyte{suffix}"), images, compress)
        write_idx(os.path.join(folder, f"{split}-labels-idx1-ubyte{suffix}"), labels, compress)
    return images, labels


@pytest.mark.parametrize("compress", [True, False])
@pytest.mark.parametrize("layout", ["raw", "flat"])
def test_mnist_reads_idx(tmp_path, compress, layout):
    folder = tmp_path / "FashionMNIST" / "raw" if layout == "raw" else tmp_path
    images, labels = make_mnist(str(folder), compress=compress)
    ds = datasets.FashionMNIST(str(tmp_path), train=False)
    assert len(ds) == 12 and ds.data.dtype == ember.uint8 and ds.targets.dtype == ember.int64
    np.testing.assert_array_equal(ds.data.numpy(), images)
    np.testing.assert_array_equal(ds.targets.numpy(), labels)
    img, target = ds[3]
    assert img.mode == "L" and img.size == (28, 28) and target == int(labels[3]) and isinstance(target, int)
    np.testing.assert_array_equal(np.asarray(img), images[3])
    ds = datasets.FashionMNIST(str(tmp_path), transform=T.ToTensor(), target_transform=lambda y: y + 100)
    x, y = ds[0]
    np.testing.assert_allclose(x.numpy(), images[0][None] / 255.0, rtol=1e-6)
    assert y == int(labels[0]) + 100
    assert ds.classes[0] == "T-shirt/top" and ds.class_to_idx["Ankle boot"] == 9
    assert "Number of datapoints: 12" in repr(ds)


def test_idx_dtypes_and_bad_files(tmp_path):
    for dtype in (np.int16, np.int32, np.float32, np.float64):
        array = rng.normal(size=(3, 4)).astype(dtype) * 100
        write_idx(tmp_path / "a.idx", array, compress=False)
        np.testing.assert_array_equal(ember._C._vision.read_idx(str(tmp_path / "a.idx")).numpy(), array)
    (tmp_path / "bad").write_bytes(b"\x01\x02\x08\x01")
    with pytest.raises(ValueError, match="bad magic number"):
        ember._C._vision.read_idx(str(tmp_path / "bad"))
    (tmp_path / "short").write_bytes(struct.pack(">BBBBI", 0, 0, 8, 1, 100) + b"\x00" * 10)
    with pytest.raises(ValueError, match="truncated"):
        ember._C._vision.read_idx(str(tmp_path / "short"))
    with pytest.raises(RuntimeError, match="cannot open"):
        ember._C._vision.read_idx(str(tmp_path / "missing"))


def test_missing_files_and_download(tmp_path):
    with pytest.raises(RuntimeError, match="apt-get install dataset-fashion-mnist"):
        datasets.FashionMNIST(str(tmp_path))
    with pytest.raises(RuntimeError, match="download=True is not available"):
        datasets.MNIST(str(tmp_path), download=True)
    make_mnist(str(tmp_path / "MNIST" / "raw"))
    assert len(datasets.MNIST(str(tmp_path), download=True)) == 12  # present: nothing to download


@pytest.mark.skipif(not os.path.isdir("/usr/share/datasets/fashion-mnist"), reason="dataset-fashion-mnist absent")
def test_fashion_mnist_default_root():
    ds = datasets.FashionMNIST(train=False)
    assert len(ds) == 10000 and tuple(ds.data.shape) == (10000, 28, 28)
    assert sorted(set(ds.targets.tolist())) == list(range(10))


def test_cpp_dataset_matches_python_pipeline(tmp_path):
    make_mnist(str(tmp_path), n=20)
    ds = datasets.FashionMNIST(str(tmp_path))
    pipeline = T.Compose([T.ToTensor(), T.RandomCrop(28, padding=4, padding_mode="reflect"),
                          T.RandomHorizontalFlip(), T.Normalize((0.5,), (0.25,))])
    cpp = ds.cpp_dataset(pipeline)
    indices = [5, 0, 19, 7, 7, -1]
    ember.manual_seed(21)
    data, target = cpp.get_batch(indices)
    assert tuple(data.shape) == (6, 1, 28, 28) and data.dtype == ember.float32 and target.dtype == ember.int64
    ds.transform = pipeline
    ember.manual_seed(21)
    want = [ds[i] for i in indices]
    np.testing.assert_array_equal(data.numpy(), np.stack([w[0].numpy() for w in want]))
    assert target.tolist() == [w[1] for w in want]
    x, y = cpp[3]
    assert tuple(x.shape) == (1, 28, 28) and int(y) == int(ds.targets[3])
    plain = ds.cpp_dataset()
    np.testing.assert_array_equal(plain[2][0].numpy(), ds.data[2].numpy()[None] / np.float32(255))
    with pytest.raises(IndexError, match="out of range"):
        cpp.get_batch([20])
    with pytest.raises(TypeError, match="has no C\\+\\+ form"):
        ds.cpp_dataset(T.Compose([T.ToTensor(), T.RandomRotation(10)]))


def test_loader_takes_the_cpp_path_for_pil_order_transforms(tmp_path):
    """torchvision's usual order (augment the PIL image, then ToTensor, Normalize) gives the DataLoader the C++
    dataset: the same batches as the per-sample Python pipeline, from the same draws of the default generator."""
    make_mnist(str(tmp_path), n=20)
    augment = [T.RandomCrop(28, padding=2), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize((0.5,), (0.25,))]
    ds = datasets.FashionMNIST(str(tmp_path), transform=T.Compose(augment))
    order = [5, 0, 19, 7, 7, 3]
    loader = ember.utils.data.DataLoader(ds, batch_size=3, sampler=order)
    ember.manual_seed(3)
    batches = list(loader)
    assert type(iter(loader)).__name__ == "_CppIter"
    ember.manual_seed(3)
    ember._C._data.draw_seed()  # the loader's base seed, drawn before the first batch
    want = [ds[i] for i in order]
    got = ember.cat([b[0] for b in batches])
    np.testing.assert_array_equal(got.numpy(), np.stack([w[0].numpy() for w in want]))
    # a non-zero PIL fill is a pixel value: the per-sample path keeps it
    ds.transform = T.Compose([T.RandomCrop(28, padding=2, fill=255), T.ToTensor()])
    assert type(iter(loader)).__name__ != "_CppIter"


def test_cpp_loader_workers_are_deterministic(tmp_path):
    """With worker threads, each batch draws from its own generator (seeded from the loader's base seed and its
    index): the same batches whatever the thread timing or count, and the main generator draws the same."""
    make_mnist(str(tmp_path), n=64)
    ds = datasets.FashionMNIST(str(tmp_path), transform=T.Compose([T.RandomCrop(28, padding=4), T.ToTensor()]))

    def epoch(workers):
        ember.manual_seed(5)
        loader = ember.utils.data.DataLoader(ds, batch_size=8, shuffle=True, num_workers=workers)
        batches = [b[0] for b in loader]
        return ember.cat(batches), ember.rand(4)

    (one, after_one), (two, after_two) = epoch(1), epoch(3)
    assert ember.equal(one, two) and ember.equal(after_one, after_two)
    assert not ember.equal(one, epoch(0)[0])  # no workers: the transforms draw from the main generator, as torch


def write_cifar(folder, files, labels_key, meta_name, meta_key, protocol, byte_keys):
    os.makedirs(folder, exist_ok=True)
    key = (lambda k: k.encode()) if byte_keys else (lambda k: k)
    written = {}
    for name, n in files:
        data = rng.integers(0, 256, (n, 3072)).astype(np.uint8)
        labels = [int(v) for v in rng.integers(0, 10, n)]
        with open(os.path.join(folder, name), "wb") as f:
            pickle.dump({key("batch_label"): key("batch"), key("data"): data, key(labels_key): labels,
                         key("filenames"): [key(f"img{i}.png") for i in range(n)]}, f, protocol=protocol)
        written[name] = (data, labels)
    with open(os.path.join(folder, meta_name), "wb") as f:
        pickle.dump({key(meta_key): [key(f"class{i}") for i in range(10)], key("num_vis"): 3072}, f,
                    protocol=protocol)
    return written


@pytest.mark.parametrize("protocol,byte_keys", [(2, True), (2, False), (4, False)])
def test_cifar10(tmp_path, protocol, byte_keys):
    files = [(f"data_batch_{i}", 3) for i in range(1, 6)] + [("test_batch", 4)]
    written = write_cifar(str(tmp_path / "cifar-10-batches-py"), files, "labels", "batches.meta", "label_names",
                          protocol, byte_keys)
    ds = datasets.CIFAR10(str(tmp_path), train=True)
    assert len(ds) == 15 and ds.data.shape == (15, 32, 32, 3) and ds.data.dtype == np.uint8
    data = np.vstack([written[f"data_batch_{i}"][0] for i in range(1, 6)])
    np.testing.assert_array_equal(ds.data, data.reshape(-1, 3, 32, 32).transpose(0, 2, 3, 1))
    assert ds.targets == sum((written[f"data_batch_{i}"][1] for i in range(1, 6)), [])
    assert ds.classes == [f"class{i}" for i in range(10)] and ds.class_to_idx["class3"] == 3
    img, target = ds[4]
    assert img.mode == "RGB" and img.size == (32, 32) and target == ds.targets[4]
    np.testing.assert_array_equal(np.asarray(img), ds.data[4])
    test = datasets.CIFAR10(str(tmp_path), train=False, transform=T.ToTensor())
    assert len(test) == 4 and tuple(test[0][0].shape) == (3, 32, 32)


def test_cifar100(tmp_path):
    written = write_cifar(str(tmp_path / "cifar-100-python"), [("train", 5), ("test", 2)], "fine_labels", "meta",
                          "fine_label_names", 2, True)
    ds = datasets.CIFAR100(str(tmp_path))
    assert len(ds) == 5 and ds.targets == written["train"][1]


class _Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned",))


def test_cifar_reader_runs_no_code(tmp_path):
    folder = tmp_path / "cifar-10-batches-py"
    write_cifar(str(folder), [("test_batch", 2)], "labels", "batches.meta", "label_names", 2, False)
    with open(folder / "test_batch", "wb") as f:
        pickle.dump({"data": _Evil(), "labels": [1]}, f, protocol=2)
    with pytest.raises(ValueError, match="refusing to load posix.system"):
        datasets.CIFAR10(str(tmp_path), train=False)
    with pytest.raises(RuntimeError, match="Dataset not found or corrupted"):
        datasets.CIFAR10(str(tmp_path), train=True)
    with pytest.raises(RuntimeError, match="download=True is not available"):
        datasets.CIFAR10(str(tmp_path), train=True, download=True)


def test_image_folder(tmp_path):
    from PIL import Image
    arrays = {}
    for cls, names in (("dog", ["b.png", "a.jpg"]), ("cat", ["x.png", "sub/y.jpeg", "notes.txt"])):
        for name in names:
            path = tmp_path / cls / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if name.endswith(".txt"):
                path.write_text("not an image")
                continue
            array = rng.integers(0, 256, (6, 5, 3)).astype(np.uint8)
            Image.fromarray(array).save(path)
            arrays[str(path)] = array
    ds = datasets.ImageFolder(str(tmp_path))
    assert ds.classes == ["cat", "dog"] and ds.class_to_idx == {"cat": 0, "dog": 1}
    # os.walk's folders sorted: a class folder's own files before its subfolders'.
    want = [(str(tmp_path / "cat" / "x.png"), 0), (str(tmp_path / "cat" / "sub" / "y.jpeg"), 0),
            (str(tmp_path / "dog" / "a.jpg"), 1), (str(tmp_path / "dog" / "b.png"), 1)]
    assert ds.samples == want and ds.imgs == want and ds.targets == [0, 0, 1, 1]
    img, target = ds[0]
    assert img.mode == "RGB" and target == 0
    np.testing.assert_array_equal(np.asarray(img), arrays[want[0][0]])  # PNG is lossless
    jpeg, _ = ds[1]
    with Image.open(want[1][0]) as decoded:  # JPEG is lossy: what Pillow decodes
        np.testing.assert_array_equal(np.asarray(jpeg), np.asarray(decoded.convert("RGB")))
    x, _ = datasets.ImageFolder(str(tmp_path), transform=T.ToTensor())[3]
    assert tuple(x.shape) == (3, 6, 5)
    only_txt = datasets.DatasetFolder(str(tmp_path), loader=lambda p: Path(p).read_text(), extensions=(".txt",),
                                      allow_empty=True)
    assert [s[1] for s in only_txt.samples] == [0] and only_txt[0][0] == "not an image"
    with pytest.raises(FileNotFoundError, match="Found no valid file for the classes dog"):
        datasets.DatasetFolder(str(tmp_path), loader=str, extensions=(".txt",))
    with pytest.raises(ValueError, match="Both extensions and is_valid_file cannot be None"):
        datasets.DatasetFolder(str(tmp_path), loader=str)
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match="Couldn't find any class folder"):
        datasets.ImageFolder(str(tmp_path / "empty"))
