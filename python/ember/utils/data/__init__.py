"""ember.utils.data: datasets, samplers, collation and the DataLoader (torch.utils.data's API)."""
from ._collate import default_collate, default_convert
from ._worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset,
                      random_split)
from .distributed import DistributedSampler
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)
from ..._C._data import Dataset as CppDataset

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "CppDataset", "DataLoader", "Dataset",
           "DistributedSampler", "IterableDataset", "RandomSampler", "Sampler", "SequentialSampler", "Subset",
           "SubsetRandomSampler", "TensorDataset", "WeightedRandomSampler", "WorkerInfo", "default_collate",
           "default_convert", "get_worker_info", "random_split"]
