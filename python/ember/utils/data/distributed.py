"""DistributedSampler: each replica's share of a dataset (torch.utils.data.distributed's)."""
from ..._C import _data
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Replica `rank` of `num_replicas` gets every num_replicas-th index of one order (shuffled from
    seed + epoch), padded by repetition to equal shares, or trimmed with drop_last."""

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0, drop_last=False):
        if num_replicas is None or rank is None:  # Ember has no process groups
            raise ValueError("Default process group has not been initialized, please make sure to call "
                             "init_process_group.")
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        self.shuffle = shuffle
        self.seed = seed
        self._impl = _data.DistributedSampler(len(dataset), num_replicas, rank, shuffle, seed, drop_last)
        self.num_samples = len(self._impl)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        self._impl.set_epoch(self.epoch)
        return iter(self._impl.epoch())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        self.epoch = epoch
