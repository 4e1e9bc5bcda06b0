// Containers (torch.nn.Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict).
#pragma once
#include <initializer_list>

#include "ember/nn/module.h"

namespace ember::nn {

// Children named "0", "1", ... in order: the list operations Sequential and ModuleList share.
class ModuleSequence : public Module {
 public:
  using Module::Module;
  size_t size() const { return module_slots().size(); }
  // The module at `index` (negative counts from the end); torch's IndexError outside.
  ModulePtr at(int64_t index) const;
  ModulePtr operator[](int64_t index) const { return at(index); }
  void push_back(ModulePtr module);  // torch's append
  void extend(const std::vector<ModulePtr>& modules);
  void insert(int64_t index, ModulePtr module);
  void erase(int64_t index);  // the later modules are renumbered
  void set(int64_t index, ModulePtr module);
  std::vector<ModulePtr> items() const;

 protected:
  int64_t normalize(int64_t index) const;  // torch's _get_abs_string_index
};

class Sequential : public ModuleSequence {
 public:
  Sequential() : ModuleSequence("Sequential") {}
  explicit Sequential(const std::vector<ModulePtr>& modules);
  explicit Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named);  // torch's OrderedDict form
  // Each module in turn; without grad, runs of built-in Conv2d [BatchNorm2d in eval] [ReLU], MaxPool2d and eval
  // Dropout run fused (src/nn/eval_fusion.cpp) unless set_eval_fusion(false); in training, runs of Conv2d ->
  // BatchNorm2d -> ReLU [-> 2x2 MaxPool2d] (src/nn/train_fusion.cpp) unless set_train_fusion(false).
  Tensor forward(const Tensor& input) override;
};

// Whether Sequential fuses inference runs (default true); off, each module runs as called alone.
bool eval_fusion_enabled();
void set_eval_fusion(bool enabled);
// Whether Sequential fuses training runs (default true).
bool train_fusion_enabled();
void set_train_fusion(bool enabled);
// Whether fused training runs use Winograd 3x3 convolutions where they fit (default true;
// src/cpu/nn/conv_winograd.cpp).
bool winograd_enabled();
void set_winograd(bool enabled);

class ModuleList : public ModuleSequence {
 public:
  ModuleList() : ModuleSequence("ModuleList") {}
  explicit ModuleList(const std::vector<ModulePtr>& modules);
  std::string repr() const override;  // runs of equal children printed once, as torch: (0-2): 3 x Linear(...)
};

class ModuleDict : public Module {
 public:
  ModuleDict() : Module("ModuleDict") {}
  explicit ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& modules);
  void update(const std::vector<std::pair<std::string, ModulePtr>>& modules);
  ModulePtr at(const std::string& key) const;  // torch's KeyError when absent
  ModulePtr pop(const std::string& key);
  bool contains(const std::string& key) const { return module_slots().find(key) != nullptr; }
  std::vector<std::string> keys() const;
  size_t size() const { return module_slots().size(); }
  void clear();
};

// Parameters named "0", "1", ...
class ParameterList : public Module {
 public:
  ParameterList() : Module("ParameterList") {}
  explicit ParameterList(const std::vector<Tensor>& params);
  size_t size() const { return parameter_slots().size(); }
  Tensor& at(int64_t index) const;
  void push_back(Tensor param);
  std::string extra_repr() const override;
};

class ParameterDict : public Module {
 public:
  ParameterDict() : Module("ParameterDict") {}
  explicit ParameterDict(const std::vector<std::pair<std::string, Tensor>>& params);
  Tensor& at(const std::string& key) const;
  Tensor pop(const std::string& key);
  bool contains(const std::string& key) const { return parameter_slots().find(key) != nullptr; }
  std::vector<std::string> keys() const;
  size_t size() const { return parameter_slots().size(); }
  void insert(const std::string& key, Tensor param) { register_parameter(key, std::move(param)); }
  void clear();
  std::string extra_repr() const override;
};

}  // namespace ember::nn
