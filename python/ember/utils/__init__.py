"""ember.utils: checkpointing and data utilities."""
from . import checkpoint
