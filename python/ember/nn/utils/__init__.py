"""ember.nn.utils (torch.nn.utils): gradient clipping and parameter vectors, in C++."""
from ..._C._nn._utils import clip_grad_norm_, clip_grad_value_, parameters_to_vector, vector_to_parameters  # noqa: F401
