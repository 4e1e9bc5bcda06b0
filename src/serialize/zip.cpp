// Stored-zip writer and reader (with zip64) for torch-format checkpoints.
#include "zip.h"

#include <immintrin.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "ember/parallel.h"

namespace ember::serialize::detail {
namespace {

constexpr uint32_t kLocalSig = 0x04034b50, kCentralSig = 0x02014b50, kEndSig = 0x06054b50;
constexpr uint32_t kDescriptorSig = 0x08074b50;
constexpr uint16_t kFlags = 0x08;  // CRC-32 and sizes follow the data (a data descriptor)
constexpr size_t kChunk = size_t(1) << 20;  // records from this size are written in pieces of it
constexpr uint32_t kZip64EndSig = 0x06064b50, kZip64LocatorSig = 0x07064b50;
constexpr uint32_t k32 = 0xFFFFFFFFu;
constexpr uint16_t kDosDate = 0x21;  // 1980-01-01

template <typename T>
void put_le(std::string& out, T v) {
  for (size_t i = 0; i < sizeof(T); ++i) out.push_back(char(uint64_t(v) >> (8 * i) & 0xFF));
}

template <typename T>
T get_le(const unsigned char* p) {
  uint64_t v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) v |= uint64_t(p[i]) << (8 * i);
  return T(v);
}

[[noreturn]] void damaged(const std::string& why) {
  throw Error("PytorchStreamReader failed reading zip archive: " + why);
}

}  // namespace

namespace {

// CRC-32 of n bytes (n >= 64, a multiple of 16) by carry-less multiplication: four 128-bit lanes folded
// 64 bytes at a time, folded into one, then reduced to 32 bits (Barrett). `c` is the inverted running CRC.
#define EMBER_CLMUL __attribute__((target("pclmul,sse4.1")))
inline __m128i load(const unsigned char* q) { return _mm_loadu_si128(reinterpret_cast<const __m128i*>(q)); }
EMBER_CLMUL inline __m128i fold(__m128i x, __m128i k) {
  return _mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11));
}

EMBER_CLMUL uint32_t crc32_fold(uint32_t c, const unsigned char* p, size_t n) {
  // x^(4*128+32), x^(4*128-32), x^(128+32), x^(128-32), x^64 mod P, P and floor(x^64 / P), bit-reflected.
  const __m128i k4 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4), k1 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);
  const __m128i k64 = _mm_set_epi64x(0, 0x163cd6124), poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);
  const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);
  __m128i x[4] = {_mm_xor_si128(load(p), _mm_cvtsi32_si128(int(c))), load(p + 16), load(p + 32), load(p + 48)};
  p += 64;
  n -= 64;
  for (; n >= 64; p += 64, n -= 64)
    for (int i = 0; i < 4; ++i) x[i] = _mm_xor_si128(fold(x[i], k4), load(p + 16 * i));
  __m128i r = x[0];
  for (int i = 1; i < 4; ++i) r = _mm_xor_si128(fold(r, k1), x[i]);
  for (; n >= 16; p += 16, n -= 16) r = _mm_xor_si128(fold(r, k1), load(p));
  r = _mm_xor_si128(_mm_clmulepi64_si128(r, k1, 0x10), _mm_srli_si128(r, 8));                     // 128 -> 64 bits
  r = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(r, mask32), k64, 0x00), _mm_srli_si128(r, 4));  // 64 -> 32
  __m128i t = _mm_and_si128(_mm_clmulepi64_si128(_mm_and_si128(r, mask32), poly, 0x10), mask32);
  r = _mm_xor_si128(r, _mm_clmulepi64_si128(t, poly, 0x00));
  return uint32_t(_mm_extract_epi32(r, 1));
}
#undef EMBER_CLMUL

}  // namespace

uint32_t crc32_update(uint32_t crc, const void* data, size_t n) {
  static const bool fast = __builtin_cpu_supports("pclmul") && __builtin_cpu_supports("sse4.1");
  const auto* p = static_cast<const unsigned char*>(data);
  if (fast && n >= 64) {
    size_t m = n & ~size_t(15);
    crc = ~crc32_fold(~crc, p, m);
    p += m;
    n -= m;
  }
  return uint32_t(::crc32_z(crc, p, n));
}

uint32_t crc32(const void* data, size_t n) { return crc32_update(0, data, n); }

void ZipWriter::put(const void* p, size_t n) {
  pending_.append(static_cast<const char*>(p), n);
  pos_ += n;
  if (pending_.size() >= kChunk) flush();
}

void ZipWriter::flush() {
  if (!pending_.empty()) sink_(pending_.data(), pending_.size());
  pending_.clear();
}

void ZipWriter::add(const std::string& name, const void* data, size_t n) {
  Record r{name, pos_, n, 0};
  bool zip64 = n >= k32;
  std::string h;
  put_le<uint32_t>(h, kLocalSig);
  put_le<uint16_t>(h, zip64 ? 45 : 20);
  put_le<uint16_t>(h, kFlags);
  put_le<uint16_t>(h, 0);  // stored
  put_le<uint16_t>(h, 0);
  put_le<uint16_t>(h, kDosDate);
  put_le<uint32_t>(h, 0);  // CRC-32 and sizes: in the descriptor
  put_le<uint32_t>(h, zip64 ? k32 : 0);
  put_le<uint32_t>(h, zip64 ? k32 : 0);
  put_le<uint16_t>(h, uint16_t(name.size()));
  // The extra field: zip64 sizes when needed, then padding that puts the data on a 64-byte boundary.
  uint64_t fixed = pos_ + h.size() + 2 + name.size() + (zip64 ? 20 : 0) + 4;
  uint64_t pad = (kRecordAlignment - fixed % kRecordAlignment) % kRecordAlignment;
  put_le<uint16_t>(h, uint16_t((zip64 ? 20 : 0) + 4 + pad));
  h += name;
  if (zip64) {
    put_le<uint16_t>(h, 1);
    put_le<uint16_t>(h, 16);
    put_le<uint64_t>(h, 0);
    put_le<uint64_t>(h, 0);
  }
  put_le<uint16_t>(h, 0x4246);  // "FB": padding
  put_le<uint16_t>(h, uint16_t(pad));
  h.append(size_t(pad), 'Z');
  put(h.data(), h.size());
  const auto* p = static_cast<const char*>(data);
  if (n < kChunk) {  // small records gather with the headers: fewer, larger writes
    r.crc = crc32_update(0, p, n);
    put(p, n);
  } else {  // the CRC-32 on one pool thread while another writes the record (inline: one after the other)
    flush();
    parallel_for(0, 2, 1, [&](int64_t b, int64_t e) {
      if (b == 0) r.crc = crc32(p, n);
      if (e == 2)
        for (size_t done = 0; done < n; done += kChunk) sink_(p + done, std::min(kChunk, n - done));
    });
    pos_ += n;
  }
  std::string d;
  put_le<uint32_t>(d, kDescriptorSig);
  put_le<uint32_t>(d, r.crc);
  if (zip64) { put_le<uint64_t>(d, n); put_le<uint64_t>(d, n); }
  else { put_le<uint32_t>(d, uint32_t(n)); put_le<uint32_t>(d, uint32_t(n)); }
  put(d.data(), d.size());
  records_.push_back(std::move(r));
}

void ZipWriter::finish() {
  uint64_t cd_offset = pos_;
  for (const Record& r : records_) {
    bool zip64 = r.size >= k32 || r.header_offset >= k32;
    std::string h;
    put_le<uint32_t>(h, kCentralSig);
    put_le<uint16_t>(h, 45);
    put_le<uint16_t>(h, zip64 ? 45 : 20);
    put_le<uint16_t>(h, kFlags);
    put_le<uint16_t>(h, 0);
    put_le<uint16_t>(h, 0);
    put_le<uint16_t>(h, kDosDate);
    put_le<uint32_t>(h, r.crc);
    put_le<uint32_t>(h, zip64 ? k32 : uint32_t(r.size));
    put_le<uint32_t>(h, zip64 ? k32 : uint32_t(r.size));
    put_le<uint16_t>(h, uint16_t(r.name.size()));
    put_le<uint16_t>(h, zip64 ? 28 : 0);
    put_le<uint16_t>(h, 0);  // comment
    put_le<uint16_t>(h, 0);  // disk
    put_le<uint16_t>(h, 0);
    put_le<uint32_t>(h, 0);
    put_le<uint32_t>(h, zip64 ? k32 : uint32_t(r.header_offset));
    h += r.name;
    if (zip64) {
      put_le<uint16_t>(h, 1);
      put_le<uint16_t>(h, 24);
      put_le<uint64_t>(h, r.size);
      put_le<uint64_t>(h, r.size);
      put_le<uint64_t>(h, r.header_offset);
    }
    put(h.data(), h.size());
  }
  uint64_t cd_size = pos_ - cd_offset, zip64_end = pos_, count = records_.size();
  std::string e;
  put_le<uint32_t>(e, kZip64EndSig);
  put_le<uint64_t>(e, 44);
  put_le<uint16_t>(e, 45);
  put_le<uint16_t>(e, 45);
  put_le<uint32_t>(e, 0);
  put_le<uint32_t>(e, 0);
  put_le<uint64_t>(e, count);
  put_le<uint64_t>(e, count);
  put_le<uint64_t>(e, cd_size);
  put_le<uint64_t>(e, cd_offset);
  put_le<uint32_t>(e, kZip64LocatorSig);
  put_le<uint32_t>(e, 0);
  put_le<uint64_t>(e, zip64_end);
  put_le<uint32_t>(e, 1);
  put_le<uint32_t>(e, kEndSig);
  put_le<uint16_t>(e, 0);
  put_le<uint16_t>(e, 0);
  put_le<uint16_t>(e, uint16_t(std::min<uint64_t>(count, 0xFFFF)));
  put_le<uint16_t>(e, uint16_t(std::min<uint64_t>(count, 0xFFFF)));
  put_le<uint32_t>(e, uint32_t(std::min<uint64_t>(cd_size, k32)));
  put_le<uint32_t>(e, uint32_t(std::min<uint64_t>(cd_offset, k32)));
  put_le<uint16_t>(e, 0);
  put(e.data(), e.size());
  flush();
}

std::map<std::string, ZipRecord> read_zip(const Source& source) {
  const uint64_t size = source.size();
  // The end record is in the last 22 + 65535 bytes (it ends with a comment of at most 65535).
  size_t tail_n = size_t(std::min<uint64_t>(size, 22 + 0xFFFF));
  std::vector<unsigned char> tail(tail_n);
  source.read(size - tail_n, tail.data(), tail_n);
  int64_t at = -1;
  for (int64_t i = int64_t(tail_n) - 22; i >= 0; --i)
    if (get_le<uint32_t>(&tail[size_t(i)]) == kEndSig) { at = i; break; }
  if (at < 0) damaged("failed finding central directory");
  const unsigned char* end = &tail[size_t(at)];
  uint64_t end_pos = size - tail_n + uint64_t(at);
  uint64_t count = get_le<uint16_t>(end + 10), cd_size = get_le<uint32_t>(end + 12),
           cd_offset = get_le<uint32_t>(end + 16);
  if (at >= 20 && get_le<uint32_t>(end - 20) == kZip64LocatorSig) {
    uint64_t z = get_le<uint64_t>(end - 20 + 8);
    unsigned char rec[56];
    if (z > end_pos || end_pos - z < 56) damaged("bad zip64 end record offset");
    source.read(z, rec, 56);
    if (get_le<uint32_t>(rec) != kZip64EndSig) damaged("bad zip64 end record");
    count = get_le<uint64_t>(rec + 32);
    cd_size = get_le<uint64_t>(rec + 40);
    cd_offset = get_le<uint64_t>(rec + 48);
  }
  if (cd_offset > end_pos || cd_size > end_pos - cd_offset || count > cd_size / 46)
    damaged("central directory out of range");
  std::vector<unsigned char> cd(static_cast<size_t>(cd_size));
  source.read(cd_offset, cd.data(), cd.size());
  std::map<std::string, ZipRecord> records;
  size_t p = 0;
  for (uint64_t i = 0; i < count; ++i) {
    if (cd.size() - p < 46 || get_le<uint32_t>(&cd[p]) != kCentralSig) damaged("bad central directory entry");
    const unsigned char* h = &cd[p];
    uint16_t method = get_le<uint16_t>(h + 10);
    uint64_t csize = get_le<uint32_t>(h + 20), usize = get_le<uint32_t>(h + 24);
    size_t name_n = get_le<uint16_t>(h + 28), extra_n = get_le<uint16_t>(h + 30), comment_n = get_le<uint16_t>(h + 32);
    uint64_t local = get_le<uint32_t>(h + 42);
    if (cd.size() - p - 46 < name_n + extra_n + comment_n) damaged("bad central directory entry");
    std::string name(reinterpret_cast<const char*>(h + 46), name_n);
    // zip64 extra: the 64-bit values of the fields stored as 0xFFFFFFFF, in order.
    for (const unsigned char* x = h + 46 + name_n; x + 4 <= h + 46 + name_n + extra_n;) {
      uint16_t id = get_le<uint16_t>(x), n = get_le<uint16_t>(x + 2);
      const unsigned char* v = x + 4;
      if (v + n > h + 46 + name_n + extra_n) damaged("bad extra field in '" + name + "'");
      if (id == 1) {
        const unsigned char* q = v;
        for (uint64_t* f : {&usize, &csize, &local})
          if (*f == k32) {
            if (q + 8 > v + n) damaged("bad zip64 field in '" + name + "'");
            *f = get_le<uint64_t>(q);
            q += 8;
          }
      }
      x = v + n;
    }
    if (method != 0 || csize != usize)
      throw Error("ember.load: record '" + name + "' is compressed; torch's format stores records uncompressed");
    unsigned char lh[30];
    if (local > end_pos || end_pos - local < 30) damaged("local header of '" + name + "' out of range");
    source.read(local, lh, 30);
    if (get_le<uint32_t>(lh) != kLocalSig) damaged("bad local header of '" + name + "'");
    uint64_t data = local + 30 + get_le<uint16_t>(lh + 26) + get_le<uint16_t>(lh + 28);
    if (data > size || usize > size - data) damaged("record '" + name + "' extends past the end of the file");
    records[name] = ZipRecord{data, usize, get_le<uint32_t>(h + 16)};
    p += 46 + name_n + extra_n + comment_n;
  }
  return records;
}

}  // namespace ember::serialize::detail
