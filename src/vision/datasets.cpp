// IDX reading through zlib (gzopen reads plain files too) and the MNIST-style C++ dataset.
#include "ember/vision/datasets.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

#include "ember/creation.h"
#include "ember/errors.h"
#include "ember/ops.h"

namespace ember::vision {

namespace {

struct GzFile {
  gzFile f;
  explicit GzFile(const std::string& path) : f(gzopen(path.c_str(), "rb")) {
    EMBER_CHECK(f, Error, "cannot open ", path, ": ", std::strerror(errno));
  }
  ~GzFile() { gzclose(f); }
  void read(void* dst, size_t n, const std::string& path) {
    char* p = static_cast<char*>(dst);
    while (n) {
      unsigned chunk = unsigned(std::min<size_t>(n, size_t(1) << 30));
      int got = gzread(f, p, chunk);
      EMBER_CHECK(got > 0, ValueError, path, ": truncated or corrupt IDX file");
      p += got, n -= size_t(got);
    }
  }
};

ScalarType idx_dtype(uint8_t code, const std::string& path) {
  switch (code) {
    case 0x08: return kUInt8;
    case 0x09: return kInt8;
    case 0x0B: return kInt16;
    case 0x0C: return kInt32;
    case 0x0D: return kFloat32;
    case 0x0E: return kFloat64;
  }
  throw ValueError(str(path, ": not an IDX file (unknown data type 0x", std::hex, int(code), ")"));
}

// root/<folder>/raw, root/<folder> or root: the first that holds `name` or `name`.gz.
std::string find_idx(const std::string& root, const std::string& folder, const std::string& name,
                     const std::string& hint) {
  namespace fs = std::filesystem;
  std::vector<fs::path> folders{fs::path(root) / folder / "raw", fs::path(root) / folder, fs::path(root)};
  for (const auto& dir : folders)
    for (const auto& file : {dir / name, dir / (name + ".gz")})
      if (fs::is_regular_file(file)) return file.string();
  throw Error(str("Dataset not found: no ", name, " (optionally .gz) in ", folders[0].string(), ", ",
                  folders[1].string(), ", ", folders[2].string(), "; ", hint));
}

const char* split_prefix(Split split) { return split == Split::Train ? "train" : "t10k"; }

uint32_t big_endian(const uint8_t* b) { return uint32_t(b[0]) << 24 | uint32_t(b[1]) << 16 | uint32_t(b[2]) << 8 | b[3]; }

}  // namespace

Tensor read_idx(const std::string& path) {
  GzFile file(path);
  uint8_t magic[4];
  file.read(magic, 4, path);
  EMBER_CHECK(magic[0] == 0 && magic[1] == 0 && magic[3] >= 1, ValueError, path, ": not an IDX file (bad magic number)");
  ScalarType dtype = idx_dtype(magic[2], path);
  DimVector sizes;
  for (int d = 0; d < magic[3]; ++d) {
    uint8_t b[4];
    file.read(b, 4, path);
    sizes.push_back(int64_t(big_endian(b)));
  }
  Tensor t = empty(sizes, TensorOptions(dtype));
  size_t item = dtype_info(dtype).itemsize, n = size_t(t.numel());
  file.read(t.data_ptr(), n * item, path);
  auto* bytes = static_cast<uint8_t*>(t.data_ptr());
  for (size_t i = 0; item > 1 && i < n; ++i) std::reverse(bytes + i * item, bytes + (i + 1) * item);  // to host order
  return t;
}

MNIST::MNIST(Tensor images, Tensor labels, std::vector<std::shared_ptr<const Transform>> transforms)
    : images_(images.contiguous()), labels_(labels.to(kInt64).contiguous()), transforms_(std::move(transforms)) {
  EMBER_CHECK(images_.dim() == 3 && images_.dtype() == kUInt8, ValueError,
              "MNIST: expected uint8 images [N, H, W], got ", dtype_info(images_.dtype()).name, " ", int_list(images_.sizes()));
  EMBER_CHECK(labels_.dim() == 1 && labels_.size(0) == images_.size(0), ValueError, "MNIST: ", images_.size(0),
              " images but labels of shape ", int_list(labels_.sizes()));
}

MNIST::MNIST(const std::string& images_path, const std::string& labels_path,
             std::vector<std::shared_ptr<const Transform>> transforms)
    : MNIST(read_idx(images_path), read_idx(labels_path), std::move(transforms)) {}

MNIST::MNIST(const std::string& root, const std::string& folder, Split split, const std::string& hint,
             std::vector<std::shared_ptr<const Transform>> transforms)
    : MNIST(find_idx(root, folder, str(split_prefix(split), "-images-idx3-ubyte"), hint),
            find_idx(root, folder, str(split_prefix(split), "-labels-idx1-ubyte"), hint), std::move(transforms)) {}

MNIST::MNIST(const std::string& root, Split split, std::vector<std::shared_ptr<const Transform>> transforms)
    : MNIST(root, "MNIST", split, "place the MNIST IDX files (train-images-idx3-ubyte[.gz] ...) there",
            std::move(transforms)) {}

FashionMNIST::FashionMNIST(const std::string& root, Split split, std::vector<std::shared_ptr<const Transform>> transforms)
    : MNIST(root, "FashionMNIST", split, "install Debian's package: apt-get install dataset-fashion-mnist",
            std::move(transforms)) {}

data::Example MNIST::get(int64_t index) {
  data::Example b = get_batch(std::span<const int64_t>(&index, 1));
  return {b.data.select(0, 0), b.target.select(0, 0)};
}

data::Example MNIST::get_batch(std::span<const int64_t> indices) {
  int64_t n = int64_t(indices.size()), h = images_.size(1), w = images_.size(2), count = size();
  Tensor data = empty({n, 1, h, w}, TensorOptions(kFloat32)), target = empty({n}, TensorOptions(kInt64));
  const uint8_t* src = images_.data_ptr<uint8_t>();
  const int64_t* lab = labels_.data_ptr<int64_t>();
  float* dst = data.data_ptr<float>();
  int64_t* tgt = target.data_ptr<int64_t>();
  for (int64_t i = 0; i < n; ++i) {
    int64_t k = indices[size_t(i)];
    EMBER_CHECK(k >= -count && k < count, IndexError, "index ", k, " is out of range for a dataset of ", count, " samples");
    if (k < 0) k += count;
    const uint8_t* img = src + k * h * w;
    for (int64_t p = 0; p < h * w; ++p) dst[i * h * w + p] = float(img[p]) / 255.0f;
    tgt[i] = lab[k];
  }
  return {transforms_.empty() ? data : apply_transforms(transforms_, data), target};
}

}  // namespace ember::vision
