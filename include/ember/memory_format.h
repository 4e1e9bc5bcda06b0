// torch.memory_format: the dim order a new or copied tensor takes in memory.
#pragma once

namespace ember {

enum class MemoryFormat { Contiguous, Preserve, ChannelsLast, ChannelsLast3d };

}  // namespace ember
