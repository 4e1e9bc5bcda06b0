"""Samplers (torch.utils.data's). The random ones are C++ (ember._C._data) and give torch's order from
the same generator; like torch's, each draws when its iteration starts."""
from ..._C import _data

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]


class Sampler:
    """Iterates over dataset indices (or batches of them)."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


def _check_int(value, name, positive=True):
    if not isinstance(value, int) or isinstance(value, bool) or (positive and value <= 0):
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """A random permutation (or, with replacement, uniform draws); without a generator each pass seeds
    a private one from the default generator, as torch's."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        _check_int(self.num_samples, "num_samples")

    @property
    def num_samples(self):
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        impl = _data.RandomSampler(len(self.data_source), self.replacement, self.num_samples, self.generator)
        yield from impl.epoch()

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        order = _data.SubsetRandomSampler(list(range(len(self.indices))), self.generator).epoch()
        for i in order:
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """Indices drawn with the given weights (torch.multinomial's draws)."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        _check_int(num_samples, "num_samples")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        from ... import as_tensor, float64
        weights_tensor = as_tensor(weights, dtype=float64)
        if len(weights_tensor.shape) != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(weights_tensor.shape)}")
        self.weights = weights_tensor
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        yield from _data.multinomial(self.weights.tolist(), self.num_samples, self.replacement, self.generator)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of batch_size (the last shorter unless drop_last)."""

    def __init__(self, sampler, batch_size, drop_last):
        _check_int(batch_size, "batch_size")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        batch = []
        for idx in self.sampler:
            batch.append(idx)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else (n + self.batch_size - 1) // self.batch_size
