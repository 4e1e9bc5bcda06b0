// Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict (torch/nn/modules/container.py's rules).
#include "ember/nn/container.h"

#include "ember/nn/repr.h"
#include "eval_fusion.h"
#include "train_fusion.h"

namespace ember::nn {

namespace {

// "Parameter containing: [torch.float32 of size 2x3]", torch's ParameterList line; ParameterDict's names the
// tensor type (torch.FloatTensor).
std::string parameter_line(const std::string& key, const Tensor& p, bool type_name) {
  std::string size;
  for (int64_t i = 0; i < p.dim(); ++i) size.append(i ? "x" : "").append(std::to_string(p.size(i)));
  std::string device = p.device().is_cuda() ? str(" (", p.device(), ")") : "";
  std::string type = type_name ? str(p.device().is_cuda() ? "torch.cuda." : "torch.", legacy_name(p.dtype()), "Tensor")
                               : str("torch.", dtype_name(p.dtype()));
  return str("  (", key, "): Parameter containing: [", type, " of size ", size, device, "]");
}

std::string parameter_lines(const Module& m, bool type_name) {
  std::string s;
  for (auto& item : m.parameter_slots().items())
    s += (s.empty() ? "" : "\n") + parameter_line(item->name, item->value, type_name);
  return s;
}

}  // namespace

// ---- the list operations

int64_t ModuleSequence::normalize(int64_t index) const {
  auto n = int64_t(size());
  EMBER_CHECK(-n <= index && index < n, IndexError, "index ", index, " is out of range");
  return index < 0 ? index + n : index;
}

ModulePtr ModuleSequence::at(int64_t index) const { return module_slots().items()[normalize(index)]->value; }

void ModuleSequence::push_back(ModulePtr module) { add_module(std::to_string(size()), std::move(module)); }

void ModuleSequence::extend(const std::vector<ModulePtr>& modules) {
  for (auto& m : modules) push_back(m);
}

void ModuleSequence::insert(int64_t index, ModulePtr module) {
  auto n = int64_t(size());
  EMBER_CHECK(-n <= index && index <= n, IndexError, "Index out of range: ", index);
  if (index < 0) index += n;
  push_back(std::move(module));  // then rotated into place: the names stay "0".."n"
  auto& items = module_slots().items();
  for (int64_t i = n; i > index; --i) std::swap(items[i]->value, items[i - 1]->value);
}

void ModuleSequence::erase(int64_t index) {
  std::vector<ModulePtr> kept = items();
  kept.erase(kept.begin() + normalize(index));
  while (size() > 0) unregister(std::to_string(size() - 1));
  extend(kept);
}

void ModuleSequence::set(int64_t index, ModulePtr module) {
  add_module(module_slots().items()[normalize(index)]->name, std::move(module));
}

std::vector<ModulePtr> ModuleSequence::items() const {
  std::vector<ModulePtr> out;
  for (auto& item : module_slots().items()) out.push_back(item->value);
  return out;
}

Sequential::Sequential(const std::vector<ModulePtr>& modules) : ModuleSequence("Sequential") { extend(modules); }

Sequential::Sequential(const std::vector<std::pair<std::string, ModulePtr>>& named) : ModuleSequence("Sequential") {
  for (auto& [name, m] : named) add_module(name, m);
}

Tensor Sequential::forward(const Tensor& input) {
  Tensor x = input;
  auto& items = module_slots().items();
  for (size_t i = 0; i < items.size();) {
    if (size_t fused = run_fused_eval(items, i, x) ?: run_fused_train(items, i, x)) {
      i += fused;
      continue;
    }
    EMBER_CHECK(items[i]->value, TypeError, "'NoneType' object is not callable");
    x = (*items[i]->value)(x);
    ++i;
  }
  return x;
}

ModuleList::ModuleList(const std::vector<ModulePtr>& modules) : ModuleSequence("ModuleList") { extend(modules); }

std::string ModuleList::repr() const {
  std::vector<std::string> reprs;
  for (auto& m : items()) reprs.push_back(m ? m->repr() : "None");
  if (reprs.empty()) return name() + "()";
  std::string s = name() + "(";
  for (size_t start = 0, end; start < reprs.size(); start = end + 1) {
    for (end = start; end + 1 < reprs.size() && reprs[end + 1] == reprs[start];) ++end;
    std::string line = start == end ? str("(", start, "): ", reprs[start])
                                    : str("(", start, "-", end, "): ", end - start + 1, " x ", reprs[start]);
    s += "\n  " + add_indent(line, 2);
  }
  return s + "\n)";
}

// ---- ModuleDict

ModuleDict::ModuleDict(const std::vector<std::pair<std::string, ModulePtr>>& modules) : Module("ModuleDict") {
  update(modules);
}

void ModuleDict::update(const std::vector<std::pair<std::string, ModulePtr>>& modules) {
  for (auto& [key, m] : modules) add_module(key, m);
}

ModulePtr ModuleDict::at(const std::string& key) const {
  ModulePtr* m = module_slots().find(key);
  EMBER_CHECK(m, KeyError, "'", key, "'");
  return *m;
}

ModulePtr ModuleDict::pop(const std::string& key) {
  ModulePtr m = at(key);
  unregister(key);
  return m;
}

std::vector<std::string> ModuleDict::keys() const {
  std::vector<std::string> out;
  for (auto& item : module_slots().items()) out.push_back(item->name);
  return out;
}

void ModuleDict::clear() {
  for (auto& key : keys()) unregister(key);
}

// ---- ParameterList, ParameterDict

ParameterList::ParameterList(const std::vector<Tensor>& params) : Module("ParameterList") {
  for (auto& p : params) push_back(p);
}

Tensor& ParameterList::at(int64_t index) const {
  auto n = int64_t(size());
  EMBER_CHECK(-n <= index && index < n, IndexError, "index ", index, " is out of range");
  return parameter_slots().items()[index < 0 ? index + n : index]->value;
}

void ParameterList::push_back(Tensor param) { register_parameter(std::to_string(size()), std::move(param)); }

std::string ParameterList::extra_repr() const {
  return parameter_lines(*this, false);
}

ParameterDict::ParameterDict(const std::vector<std::pair<std::string, Tensor>>& params) : Module("ParameterDict") {
  for (auto& [key, p] : params) insert(key, p);
}

Tensor& ParameterDict::at(const std::string& key) const {
  Tensor* p = parameter_slots().find(key);
  EMBER_CHECK(p, KeyError, "'", key, "'");
  return *p;
}

Tensor ParameterDict::pop(const std::string& key) {
  Tensor p = at(key);
  unregister(key);
  return p;
}

std::vector<std::string> ParameterDict::keys() const {
  std::vector<std::string> out;
  for (auto& item : parameter_slots().items()) out.push_back(item->name);
  return out;
}

void ParameterDict::clear() {
  for (auto& key : keys()) unregister(key);
}

std::string ParameterDict::extra_repr() const {
  return parameter_lines(*this, true);
}

}  // namespace ember::nn
