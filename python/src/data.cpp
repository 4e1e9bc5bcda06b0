// ember._C._data: the C++ side of ember.utils.data (samplers, random_split, the C++ dataset interface
// and its batch stream) and Tensor.share_memory_ / is_shared with the pieces that pickle shared tensors.
#include <nanobind/stl/shared_ptr.h>
#include <nanobind/stl/unique_ptr.h>

#include "bindings.h"
#include "ember/data/dataloader.h"
#include "ember/data/datasets.h"
#include "ember/shared_memory.h"

namespace ember::py {

namespace {

std::optional<Generator> gen_of(std::optional<Generator*> g) {
  return g && *g ? std::optional<Generator>(**g) : std::nullopt;
}

nb::object example_tuple(data::Example e) { return nb::make_tuple(std::move(e.data), std::move(e.target)); }

// The sampler's epoch() and len(), shared by every bound sampler.
template <typename S>
nb::class_<S, data::Sampler> sampler_class(nb::module_& d, const char* name) {
  return nb::class_<S, data::Sampler>(d, name);
}

}  // namespace

void init_data(nb::module_& m) {
  nb::module_ d = m.def_submodule("_data", "ember.utils.data's C++ side");
  d.def("draw_seed", [](std::optional<Generator*> g) { return data::draw_seed(g ? *g : nullptr); },
        nb::arg("generator") = nb::none());
  d.def("multinomial", [](const std::vector<double>& w, int64_t n, bool replacement, std::optional<Generator*> g) {
    return data::multinomial(w, n, replacement, g ? *g : nullptr);
  }, nb::arg("weights"), nb::arg("num_samples"), nb::arg("replacement"), nb::arg("generator") = nb::none());

  nb::class_<data::Sampler>(d, "Sampler")
      .def("__len__", &data::Sampler::size)
      .def("epoch", [](data::Sampler& s) {
        nb::gil_scoped_release unlocked;
        return s.epoch();
      });
  sampler_class<data::SequentialSampler>(d, "SequentialSampler").def(nb::init<int64_t>(), nb::arg("n"));
  sampler_class<data::RandomSampler>(d, "RandomSampler")
      .def("__init__", [](data::RandomSampler* s, int64_t n, bool replacement, std::optional<int64_t> num_samples,
                          std::optional<Generator*> g) { new (s) data::RandomSampler(n, replacement, num_samples, gen_of(g)); },
           nb::arg("n"), nb::arg("replacement") = false, nb::arg("num_samples") = nb::none(),
           nb::arg("generator") = nb::none());
  sampler_class<data::SubsetRandomSampler>(d, "SubsetRandomSampler")
      .def("__init__", [](data::SubsetRandomSampler* s, data::Indices indices, std::optional<Generator*> g) {
        new (s) data::SubsetRandomSampler(std::move(indices), gen_of(g));
      }, nb::arg("indices"), nb::arg("generator") = nb::none());
  sampler_class<data::WeightedRandomSampler>(d, "WeightedRandomSampler")
      .def("__init__", [](data::WeightedRandomSampler* s, std::vector<double> w, int64_t n, bool replacement,
                          std::optional<Generator*> g) {
        new (s) data::WeightedRandomSampler(std::move(w), n, replacement, gen_of(g));
      }, nb::arg("weights"), nb::arg("num_samples"), nb::arg("replacement") = true, nb::arg("generator") = nb::none());
  sampler_class<data::DistributedSampler>(d, "DistributedSampler")
      .def(nb::init<int64_t, int64_t, int64_t, bool, int64_t, bool>(), nb::arg("n"), nb::arg("num_replicas"),
           nb::arg("rank"), nb::arg("shuffle") = true, nb::arg("seed") = 0, nb::arg("drop_last") = false)
      .def("set_epoch", &data::DistributedSampler::set_epoch, nb::arg("epoch"));
  d.def("make_batches", &data::make_batches, nb::arg("order"), nb::arg("batch_size"), nb::arg("drop_last"));
  d.def("split_lengths", [](int64_t n, const std::vector<double>& f) { return data::split_lengths(n, f); },
        nb::arg("n"), nb::arg("fractions"));
  d.def("random_split", [](int64_t n, const std::vector<int64_t>& lengths, std::optional<Generator*> g) {
    return data::random_split(n, lengths, g ? *g : nullptr);
  }, nb::arg("n"), nb::arg("lengths"), nb::arg("generator") = nb::none());

  // C++ datasets (the vision datasets derive from Dataset): samples are (data, target) tuples.
  nb::class_<data::Dataset>(d, "Dataset")
      .def("__len__", &data::Dataset::size)
      .def("__getitem__", [](data::Dataset& ds, int64_t i) {
        EMBER_CHECK(i >= -ds.size() && i < ds.size(), IndexError, "index ", i, " is out of range for a dataset of ",
                    ds.size(), " samples");
        return example_tuple(ds.get(i < 0 ? i + ds.size() : i));
      }, nb::arg("index"))
      .def("get_batch", [](data::Dataset& ds, const data::Indices& indices) {
        for (int64_t i : indices)
          EMBER_CHECK(i >= 0 && i < ds.size(), IndexError, "index ", i, " is out of range for a dataset of ", ds.size(),
                      " samples");
        return example_tuple(ds.get_batch(indices));
      }, nb::arg("indices"));
  nb::class_<data::TensorDataset, data::Dataset>(d, "TensorDataset")
      .def(nb::init<Tensor, Tensor>(), nb::arg("data"), nb::arg("target"));
  nb::class_<data::BatchStream>(d, "BatchStream")
      .def(nb::init<std::shared_ptr<data::Dataset>, std::vector<data::Indices>, int64_t, int64_t, uint64_t>(),
           nb::arg("dataset"), nb::arg("batches"), nb::arg("num_workers") = 0, nb::arg("prefetch_factor") = 2,
           nb::arg("base_seed") = 0)
      .def("__len__", &data::BatchStream::size)
      .def("__iter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__next__", [](data::BatchStream& s) {
        std::optional<data::Example> e;
        {
          nb::gil_scoped_release unlocked;
          e = s.next();
        }
        if (!e) throw nb::stop_iteration();
        return example_tuple(std::move(*e));
      });

  nb::class_<data::DataLoader>(d, "DataLoader")
      .def("__init__", [](data::DataLoader* l, std::shared_ptr<data::Dataset> ds, int64_t batch_size, bool shuffle,
                          bool drop_last, int64_t num_workers, int64_t prefetch_factor, std::optional<Generator*> g,
                          std::shared_ptr<data::Sampler> sampler) {
        new (l) data::DataLoader(std::move(ds), {batch_size, shuffle, drop_last, num_workers, prefetch_factor, gen_of(g)},
                                 std::move(sampler));
      }, nb::arg("dataset"), nb::arg("batch_size") = 1, nb::arg("shuffle") = false, nb::arg("drop_last") = false,
         nb::arg("num_workers") = 0, nb::arg("prefetch_factor") = 2, nb::arg("generator") = nb::none(),
         nb::arg("sampler") = nb::none())
      .def("__len__", &data::DataLoader::size)
      .def("__iter__", [](data::DataLoader& l) { return l.epoch(); })
      .def_prop_ro("base_seed", &data::DataLoader::base_seed);

  // Shared memory: the methods, and what the multiprocessing pickler sends (the segment's name).
  nb::handle cls = m.attr("Tensor");
  nb::setattr(cls, "share_memory_", nb::cpp_function([](nb::handle self) {
    Tensor& t = nb::cast<Tensor&>(self);
    share_memory_(t);
    return nb::borrow(self);
  }, nb::is_method(), nb::name("share_memory_")));
  nb::setattr(cls, "is_shared", nb::cpp_function([](const Tensor& t) { return is_shared(t); }, nb::is_method(),
                                                  nb::name("is_shared")));
  d.def("shared_segment", [](const Tensor& t) -> nb::object {
    auto s = shared_segment(t.storage());
    if (!s) return nb::none();
    return nb::make_tuple(s->name, s->nbytes);
  }, nb::arg("tensor"));
  d.def("hand_over_segment", [](const Tensor& t) { return hand_over_segment(t.storage()); }, nb::arg("tensor"));
  d.def("open_shared_segment", &open_shared_segment, nb::arg("name"), nb::arg("nbytes"), nb::arg("take_over"));
}

}  // namespace ember::py
