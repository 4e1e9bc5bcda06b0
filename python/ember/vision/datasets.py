"""torchvision.datasets for Ember: MNIST / FashionMNIST (IDX files, gzipped or not, read in C++), CIFAR10 /
CIFAR100 (the python-pickle batches, read by a restricted reader that executes nothing), ImageFolder and
DatasetFolder (Pillow). Nothing is downloaded: the files must be on disk."""
import os
import pickletools

import numpy as np

import ember
from ember import _C
from .transforms.transforms import Compose, ToTensor, _cpp_pipeline

__all__ = ["VisionDataset", "MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "DatasetFolder", "ImageFolder",
           "IMG_EXTENSIONS", "default_loader", "pil_loader"]


def _no_download(name):
    raise RuntimeError(f"{name}: download=True is not available (Ember never fetches data over the network); "
                       "place the dataset files under root")


class VisionDataset:
    """The base of the image datasets: root, transform (image), target_transform (label), transforms (both)."""

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        self.root = os.path.expanduser(root) if isinstance(root, (str, os.PathLike)) else root
        has_separate = transform is not None or target_transform is not None
        if transforms is not None and has_separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as argument")
        self.transform, self.target_transform = transform, target_transform
        self.transforms = transforms

    def _apply(self, img, target):
        if self.transforms is not None:
            return self.transforms(img, target)
        if self.transform is not None:
            img = self.transform(img)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return img, target

    def __len__(self):
        raise NotImplementedError

    def extra_repr(self):
        return ""

    def __repr__(self):
        lines = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            lines.append(f"Root location: {self.root}")
        lines += [line for line in self.extra_repr().splitlines() if line]
        if self.transform is not None:
            lines.append(f"StandardTransform\nTransform: {self.transform!r}")
        return "\n".join([f"Dataset {self.__class__.__name__}"] + ["    " + line for line in lines])


class MNIST(VisionDataset):
    """Images [N, 28, 28] uint8 (.data), labels int64 (.targets); items are (PIL image 'L', int label).
    root=None looks in _default_root; files are searched in root/<ClassName>/raw, root/<ClassName> and root."""

    classes = ["0 - zero", "1 - one", "2 - two", "3 - three", "4 - four", "5 - five", "6 - six", "7 - seven",
               "8 - eight", "9 - nine"]
    _default_root = "/usr/share/datasets/mnist"
    _install_hint = "place the MNIST IDX files (train-images-idx3-ubyte[.gz] ...) there"

    def __init__(self, root=None, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root if root is not None else self._default_root, transform=transform,
                         target_transform=target_transform)
        self.train = train
        prefix = "train" if train else "t10k"
        images = self._find(f"{prefix}-images-idx3-ubyte")
        labels = self._find(f"{prefix}-labels-idx1-ubyte")
        if images is None or labels is None:
            if download:
                _no_download(self.__class__.__name__)
            raise RuntimeError(f"Dataset not found: no {prefix}-images-idx3-ubyte / {prefix}-labels-idx1-ubyte "
                               f"(optionally .gz) in {', '.join(self._folders())}; {self._install_hint}")
        self.data = _C._vision.read_idx(images)
        self.targets = _C._vision.read_idx(labels).long()
        if self.data.dim() != 3 or self.data.dtype != ember.uint8 or self.targets.shape != (self.data.shape[0],):
            raise RuntimeError(f"{images}, {labels}: not an MNIST-style pair of IDX files")
        self._pixels = self.data.numpy()

    def _folders(self):
        return [os.path.join(self.root, self.__class__.__name__, "raw"), os.path.join(self.root, self.__class__.__name__),
                str(self.root)]

    def _find(self, name):
        for folder in self._folders():
            for candidate in (name, name + ".gz"):
                path = os.path.join(folder, candidate)
                if os.path.isfile(path):
                    return path
        return None

    @property
    def class_to_idx(self):
        return {c: i for i, c in enumerate(self.classes)}

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        from PIL import Image
        img = Image.fromarray(self._pixels[index])
        return self._apply(img, int(self.targets[index]))

    def extra_repr(self):
        return f"Split: {'Train' if self.train else 'Test'}"

    @property
    def _cpp_dataset(self):
        """The C++ dataset the DataLoader batches in place of this one (no Python per sample), or None. It takes a
        transform of ToTensor and transforms with a C++ form; those before ToTensor (crops with fill 0, flips)
        give the same pixels on the tensor, from the same random draws. No target_transform."""
        steps = self.transform.transforms if isinstance(self.transform, Compose) else [self.transform]
        cut = next((i for i, t in enumerate(steps) if isinstance(t, ToTensor)), None)
        if cut is None or self.transforms is not None or self.target_transform is not None:
            return None
        if any(getattr(t, "fill", 0) != 0 for t in steps[:cut]):  # a PIL fill is a pixel value, not a tensor's
            return None
        try:
            return self.cpp_dataset(Compose(steps[:cut] + steps[cut + 1:]))
        except TypeError:
            return None

    def cpp_dataset(self, transform=None):
        """The same split as a C++ dataset (ember::vision::MNIST) that the C++ loader batches without Python:
        items are (float image [1, H, W] as ToTensor gives, then `transform`, int64 label). transform: None, or
        a Compose of ToTensor, RandomCrop, RandomHorizontalFlip, RandomVerticalFlip and Normalize."""
        return _C._vision.MNIST(self.data, self.targets, _cpp_pipeline(transform))


class FashionMNIST(MNIST):
    classes = ["T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
               "Ankle boot"]
    _default_root = "/usr/share/datasets/fashion-mnist"
    _install_hint = "install Debian's package: apt-get install dataset-fashion-mnist"


# --- CIFAR: a restricted reader of the pickled batches --------------------------------------------------------

class _Array:
    """numpy's _reconstruct(ndarray, ...) result before BUILD gives it its state."""


_GLOBALS = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
            ("numpy", "ndarray"), ("numpy", "dtype"), ("_codecs", "encode")}


def _reduce(fn, args, path):
    if fn in (("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct")):
        return _Array()
    if fn == ("numpy", "dtype") and isinstance(args[0], str):
        dtype = np.dtype(args[0])
        if dtype.hasobject:
            raise ValueError(f"{path}: object arrays are not CIFAR data")
        return dtype
    if fn == ("_codecs", "encode") and len(args) == 2 and args[1] in ("latin1", "latin-1"):
        return args[0].encode("latin1")
    raise ValueError(f"{path}: unexpected call {fn} in a CIFAR batch file")


def _build(obj, state, path):
    if isinstance(obj, _Array):
        _, shape, dtype, fortran, raw = state
        raw = raw.encode("latin1") if isinstance(raw, str) else raw
        return np.frombuffer(raw, dtype=dtype).reshape(shape, order="F" if fortran else "C").copy()
    if isinstance(obj, np.dtype):
        return obj.newbyteorder(">") if state[1] == ">" else obj
    raise ValueError(f"{path}: unexpected object state in a CIFAR batch file")


_CONSTANTS = {"EMPTY_DICT": dict, "EMPTY_LIST": list, "EMPTY_TUPLE": tuple, "NONE": lambda: None,
              "NEWTRUE": lambda: True, "NEWFALSE": lambda: False}


def _read_pickle(path):
    """Interprets the pickle opcodes of a CIFAR batch (dicts, lists, strings, numbers and numpy arrays): no
    pickled code runs, and any other global or opcode is an error."""
    with open(path, "rb") as f:
        data = f.read()
    stack, marks, memo = [], [], {}

    def pop_mark():
        k = marks.pop()
        items = stack[k:]
        del stack[k:]
        return items

    for op, arg, _ in pickletools.genops(data):
        name = op.name
        if name in ("PROTO", "FRAME"):
            continue
        if name == "STOP":
            break
        if name == "MARK":
            marks.append(len(stack))
        elif name in _CONSTANTS:
            stack.append(_CONSTANTS[name]())
        elif name in ("BININT", "BININT1", "BININT2", "LONG1", "LONG4", "INT", "LONG", "BINFLOAT", "FLOAT",
                      "BINUNICODE", "SHORT_BINUNICODE", "BINUNICODE8", "UNICODE", "SHORT_BINBYTES", "BINBYTES",
                      "BINBYTES8", "SHORT_BINSTRING", "BINSTRING", "STRING"):
            stack.append(arg)
        elif name in ("BINPUT", "LONG_BINPUT", "PUT"):
            memo[arg] = stack[-1]
        elif name == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif name in ("BINGET", "LONG_BINGET", "GET"):
            stack.append(memo[arg])
        elif name in ("TUPLE1", "TUPLE2", "TUPLE3"):
            n = int(name[-1])
            stack[-n:] = [tuple(stack[-n:])]
        elif name in ("TUPLE", "LIST"):
            items = pop_mark()
            stack.append(tuple(items) if name == "TUPLE" else items)
        elif name == "DICT":
            items = pop_mark()
            stack.append(dict(zip(items[::2], items[1::2])))
        elif name == "APPEND":
            value = stack.pop()
            stack[-1].append(value)
        elif name == "APPENDS":
            items = pop_mark()
            stack[-1].extend(items)
        elif name == "SETITEM":
            value, key = stack.pop(), stack.pop()
            stack[-1][key] = value
        elif name == "SETITEMS":
            items = pop_mark()
            stack[-1].update(zip(items[::2], items[1::2]))
        elif name in ("GLOBAL", "STACK_GLOBAL"):
            if name == "GLOBAL":
                module, qualname = arg.split(" ", 1)
            else:
                qualname = stack.pop()
                module = stack.pop()
            if (module, qualname) not in _GLOBALS:
                raise ValueError(f"{path}: refusing to load {module}.{qualname}: not a CIFAR batch file")
            stack.append((module, qualname))
        elif name == "REDUCE":
            args = stack.pop()
            stack[-1] = _reduce(stack[-1], args, path)
        elif name == "BUILD":
            state = stack.pop()
            stack[-1] = _build(stack[-1], state, path)
        else:
            raise ValueError(f"{path}: unsupported pickle opcode {name}: not a CIFAR batch file")
    if len(stack) != 1 or not isinstance(stack[0], dict):
        raise ValueError(f"{path}: not a CIFAR batch file (expected a pickled dict)")
    return {k.decode("latin1") if isinstance(k, bytes) else k: v for k, v in stack[0].items()}


class CIFAR10(VisionDataset):
    """.data: numpy uint8 [N, 32, 32, 3]; .targets: list of ints; items are (PIL RGB image, int label).
    Reads root/cifar-10-batches-py/{data_batch_1..5, test_batch, batches.meta}."""

    base_folder = "cifar-10-batches-py"
    train_list = [f"data_batch_{i}" for i in range(1, 6)]
    test_list = ["test_batch"]
    meta = {"filename": "batches.meta", "key": "label_names"}
    labels_key = "labels"

    def __init__(self, root, train=True, transform=None, target_transform=None, download=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.train = train
        folder = os.path.join(self.root, self.base_folder)
        names = self.train_list if train else self.test_list
        missing = [n for n in names + [self.meta["filename"]] if not os.path.isfile(os.path.join(folder, n))]
        if missing:
            if download:
                _no_download(self.__class__.__name__)
            raise RuntimeError(f"Dataset not found or corrupted: {', '.join(missing)} missing in {folder}")
        data, self.targets = [], []
        for n in names:
            entry = _read_pickle(os.path.join(folder, n))
            data.append(np.asarray(entry["data"], dtype=np.uint8))
            self.targets.extend(int(t) for t in entry[self.labels_key])
        self.data = np.vstack(data).reshape(-1, 3, 32, 32).transpose((0, 2, 3, 1))
        meta = _read_pickle(os.path.join(folder, self.meta["filename"]))
        self.classes = [c.decode("latin1") if isinstance(c, bytes) else c for c in meta[self.meta["key"]]]
        self.class_to_idx = {c: i for i, c in enumerate(self.classes)}

    def __len__(self):
        return len(self.data)

    def __getitem__(self, index):
        from PIL import Image
        return self._apply(Image.fromarray(self.data[index]), self.targets[index])

    def extra_repr(self):
        return f"Split: {'Train' if self.train else 'Test'}"


class CIFAR100(CIFAR10):
    """root/cifar-100-python/{train, test, meta}; targets are the fine labels."""

    base_folder = "cifar-100-python"
    train_list = ["train"]
    test_list = ["test"]
    meta = {"filename": "meta", "key": "fine_label_names"}
    labels_key = "fine_labels"


# --- folders of images ----------------------------------------------------------------------------------------

IMG_EXTENSIONS = (".jpg", ".jpeg", ".png", ".ppm", ".bmp", ".pgm", ".tif", ".tiff", ".webp")


def pil_loader(path):
    from PIL import Image
    with open(path, "rb") as f:
        img = Image.open(f)
        return img.convert("RGB")


default_loader = pil_loader


def has_file_allowed_extension(filename, extensions):
    return filename.lower().endswith(extensions if isinstance(extensions, str) else tuple(extensions))


def find_classes(directory):
    classes = sorted(entry.name for entry in os.scandir(directory) if entry.is_dir())
    if not classes:
        raise FileNotFoundError(f"Couldn't find any class folder in {directory}.")
    return classes, {name: i for i, name in enumerate(classes)}


def make_dataset(directory, class_to_idx=None, extensions=None, is_valid_file=None, allow_empty=False):
    """(path, class index) for every valid file under directory/<class>/, classes and files in sorted order."""
    directory = os.path.expanduser(directory)
    if class_to_idx is None:
        _, class_to_idx = find_classes(directory)
    if (extensions is None) == (is_valid_file is None):
        raise ValueError("Both extensions and is_valid_file cannot be None or not None at the same time")
    if extensions is not None:
        def is_valid_file(path):
            return has_file_allowed_extension(path, extensions)
    instances, found = [], set()
    for target_class in sorted(class_to_idx):
        target_dir = os.path.join(directory, target_class)
        if not os.path.isdir(target_dir):
            continue
        for root, _, fnames in sorted(os.walk(target_dir, followlinks=True)):
            for fname in sorted(fnames):
                path = os.path.join(root, fname)
                if is_valid_file(path):
                    instances.append((path, class_to_idx[target_class]))
                    found.add(target_class)
    empty = set(class_to_idx) - found
    if empty and not allow_empty:
        msg = f"Found no valid file for the classes {', '.join(sorted(empty))}. "
        if extensions is not None:
            msg += f"Supported extensions are: {extensions if isinstance(extensions, str) else ', '.join(extensions)}"
        raise FileNotFoundError(msg)
    return instances


class DatasetFolder(VisionDataset):
    """root/<class>/**/<file>: items are (loader(path), class index); classes are the sorted folder names."""

    def __init__(self, root, loader, extensions=None, transform=None, target_transform=None, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.classes, self.class_to_idx = self.find_classes(self.root)
        self.samples = self.make_dataset(self.root, self.class_to_idx, extensions, is_valid_file, allow_empty)
        self.loader, self.extensions = loader, extensions
        self.targets = [s[1] for s in self.samples]

    @staticmethod
    def make_dataset(directory, class_to_idx, extensions=None, is_valid_file=None, allow_empty=False):
        if class_to_idx is None:
            raise ValueError("The class_to_idx parameter cannot be None.")
        return make_dataset(directory, class_to_idx, extensions, is_valid_file, allow_empty)

    def find_classes(self, directory):
        return find_classes(directory)

    def __getitem__(self, index):
        path, target = self.samples[index]
        return self._apply(self.loader(path), target)

    def __len__(self):
        return len(self.samples)


class ImageFolder(DatasetFolder):
    def __init__(self, root, transform=None, target_transform=None, loader=default_loader, is_valid_file=None,
                 allow_empty=False):
        super().__init__(root, loader, IMG_EXTENSIONS if is_valid_file is None else None, transform=transform,
                         target_transform=target_transform, is_valid_file=is_valid_file, allow_empty=allow_empty)
        self.imgs = self.samples
