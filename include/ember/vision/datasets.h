// Vision datasets in C++: the IDX file reader (MNIST, Fashion-MNIST; gzipped or not) and an MNIST-style dataset
// for the C++ DataLoader (normalised float images through an optional transform pipeline).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "ember/data/dataset.h"
#include "ember/vision/transforms.h"

namespace ember::vision {

// An IDX file (magic 0, 0, type, ndim; big-endian sizes; big-endian data) as a tensor of its type; gzip is
// recognised by its header.
Tensor read_idx(const std::string& path);

// Which split of a dataset (libtorch's Mode::kTrain / kTest).
enum class Split { Train, Test };

// Images [N, H, W] uint8 and labels [N]: get(i) is (transforms(image / 255) as [1, H, W] float32, label int64).
class MNIST : public data::Dataset {
 public:
  // The split's IDX files ({train,t10k}-{images-idx3,labels-idx1}-ubyte, optionally .gz) found as torchvision
  // lays them out: in root/MNIST/raw, root/MNIST or root.
  MNIST(const std::string& root, Split split, std::vector<std::shared_ptr<const Transform>> transforms = {});
  MNIST(Tensor images, Tensor labels, std::vector<std::shared_ptr<const Transform>> transforms = {});
  // From the IDX files of one split.
  MNIST(const std::string& images_path, const std::string& labels_path,
        std::vector<std::shared_ptr<const Transform>> transforms = {});
  int64_t size() const override { return images_.size(0); }
  data::Example get(int64_t index) override;
  // One pass from uint8 into the float batch, then each transform over the whole batch.
  data::Example get_batch(std::span<const int64_t> indices) override;
  const Tensor& images() const { return images_; }
  const Tensor& labels() const { return labels_; }

 private:
  Tensor images_, labels_;
  std::vector<std::shared_ptr<const Transform>> transforms_;

 protected:
  // The files under root/<folder>/raw, root/<folder> or root; `hint` says how to get them when missing.
  MNIST(const std::string& root, const std::string& folder, Split split, const std::string& hint,
        std::vector<std::shared_ptr<const Transform>> transforms);
};

// Fashion-MNIST: the MNIST layout, found by default where Debian's dataset-fashion-mnist installs it.
class FashionMNIST : public MNIST {
 public:
  static constexpr const char* default_root = "/usr/share/datasets/fashion-mnist";
  FashionMNIST(const std::string& root, Split split, std::vector<std::shared_ptr<const Transform>> transforms = {});
};

}  // namespace ember::vision
