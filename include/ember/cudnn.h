// ember::cudnn: the process-wide switches of CUDA convolutions, as torch.backends.cudnn. allow_tf32 (default true,
// as torch) lets float32 convolutions round their inputs to TF32; benchmark (default false) times cuDNN's
// algorithms once per problem instead of taking its heuristic's first; deterministic (default false) keeps to
// algorithms whose results are the same bits on every run. Kept in the core, so they can be set before the CUDA
// backend loads (or without one).
#pragma once

namespace ember::cudnn {

bool allow_tf32();
void set_allow_tf32(bool allow);
bool benchmark();
void set_benchmark(bool benchmark);
bool deterministic();
void set_deterministic(bool deterministic);

}  // namespace ember::cudnn
