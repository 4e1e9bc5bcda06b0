// The zip container of torch's checkpoints: stored (uncompressed) records whose data start at 64-byte
// boundaries, each followed by a data descriptor (its CRC-32, computed while writing), zip64 end records
// always. Internal to src/serialize.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "ember/serialize.h"

namespace ember::serialize::detail {

inline constexpr uint64_t kRecordAlignment = 64;

// zip's CRC-32 (with carry-less multiplication where the CPU has it; zlib's otherwise), and its update.
uint32_t crc32(const void* data, size_t n);
uint32_t crc32_update(uint32_t crc, const void* data, size_t n);

class ZipWriter {
 public:
  explicit ZipWriter(const Sink& sink) : sink_(sink) {}
  void add(const std::string& name, const void* data, size_t n);
  void finish();  // the central directory and end records

 private:
  struct Record {
    std::string name;
    uint64_t header_offset, size;
    uint32_t crc;
  };
  // Headers and small records gather in `pending_` (flushed from 1 MiB on); large records go straight to the sink.
  void put(const void* p, size_t n);
  void flush();
  const Sink& sink_;
  std::string pending_;
  uint64_t pos_ = 0;
  std::vector<Record> records_;
};

struct ZipRecord {
  uint64_t offset, size;  // the data's byte range in the source
  uint32_t crc;
};
// The records of a zip of stored entries, by name; raises for a damaged or compressed archive.
std::map<std::string, ZipRecord> read_zip(const Source& source);

// Writes `path` through `produce`: into a temporary file in the same folder, renamed over `path` once complete.
void write_atomically(const std::string& path, const std::function<void(const Sink&)>& produce);

}  // namespace ember::serialize::detail
