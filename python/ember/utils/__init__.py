"""ember.utils: checkpointing and data utilities."""
from . import checkpoint
from . import data
