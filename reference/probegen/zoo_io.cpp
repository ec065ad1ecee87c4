// File: reference/probegen/zoo_io.cpp
// -----------------------------------------------------------------------------
// Zoo models as safetensors files (layout in zoo_io.h). The reader trusts
// nothing in a file: the architecture text, the accuracy, every tensor's
// presence, shape and values are checked, and each failure is one line that
// names the file.
#include "reference/probegen/zoo_io.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "harness/safetensors.h"

namespace cb::ref::probegen {
namespace {

namespace fs = std::filesystem;
namespace h = cb::harness;

std::string WeightName(size_t l) { return "layers." + std::to_string(l) + ".weight"; }
std::string BiasName(size_t l) { return "layers." + std::to_string(l) + ".bias"; }

// PyTorch's shapes: conv weight (out, in, k, k), linear weight (out, in).
std::vector<int64_t> WeightShape(const ZooLayer& layer) {
  if (layer.kind == ZooLayerKind::kConv) return {layer.out, layer.in, layer.k, layer.k};
  return {layer.out, layer.in};
}

std::string ShapeText(const std::vector<int64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + ")";
}

// The shortest text that parses back to exactly `v` (so the accuracy read
// back is the accuracy written).
std::string ExactText(double v) {
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string("nan");
}

// The whole of `text` as a finite double in [0, 1], or false. from_chars
// takes no leading space or '+', so " 0.5" and "+0.5" are refused as well.
bool ParseAccuracy(const std::string& text, double* out) {
  double v = 0.0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return false;
  if (!std::isfinite(v) || v < 0.0 || v > 1.0) return false;
  *out = v;
  return true;
}

// A metadata value for an error message: at most 40 bytes, printable ASCII
// only, so the message stays one line.
std::string Shown(const std::string& text) {
  std::string s = "\"";
  for (size_t i = 0; i < text.size() && i < 40; ++i) {
    const unsigned char ch = static_cast<unsigned char>(text[i]);
    s += (ch >= 0x20 && ch < 0x7f) ? static_cast<char>(ch) : '?';
  }
  return s + (text.size() > 40 ? "...\"" : "\"");
}

}  // namespace

void WriteZooModel(const std::string& path, const ZooModel& model, double test_accuracy,
                   const std::map<std::string, std::string>& metadata) {
  if (!std::isfinite(test_accuracy) || test_accuracy < 0.0 || test_accuracy > 1.0) {
    throw std::invalid_argument("WriteZooModel " + path + ": test_accuracy must be finite and in [0, 1]");
  }
  const ZooArch& arch = model.arch;
  std::map<std::string, std::string> meta = metadata;
  meta["arch"] = ArchToString(arch);  // throws invalid_argument on an arch with no text form
  meta["test_accuracy"] = ExactText(test_accuracy);
  if (model.w.size() != arch.layers.size() || model.b.size() != arch.layers.size()) {
    throw std::invalid_argument("WriteZooModel " + path + ": one weight and bias entry per layer expected");
  }
  std::vector<std::pair<std::string, h::SafetensorsWriteTensor>> tensors;
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const ZooLayer& layer = arch.layers[l];
    if (layer.kind == ZooLayerKind::kGlobalAvgPool) continue;
    const std::vector<int64_t> wshape = WeightShape(layer);
    int64_t wcount = 1;
    for (int64_t d : wshape) wcount *= d;
    if (static_cast<int64_t>(model.w[l].size()) != wcount ||
        static_cast<int64_t>(model.b[l].size()) != layer.out) {
      throw std::invalid_argument("WriteZooModel " + path + ": layer " + std::to_string(l) +
                                  " does not match the arch");
    }
    tensors.push_back({WeightName(l), {"F32", wshape, model.w[l]}});
    tensors.push_back({BiasName(l), {"F32", {layer.out}, model.b[l]}});
  }
  h::WriteSafetensors(path, tensors, meta);
}

StoredZooModel ReadZooModel(const std::string& path) {
  const h::SafetensorsFile file = h::SafetensorsFile::Open(path);  // its errors name the file
  auto fail = [&](const std::string& why) -> StoredZooModel {
    throw std::runtime_error("zoo model " + path + ": " + why);
  };
  StoredZooModel stored;
  stored.path = path;
  stored.metadata = file.metadata();

  const auto arch_it = stored.metadata.find("arch");
  if (arch_it == stored.metadata.end()) return fail("metadata has no \"arch\"");
  try {
    stored.model.arch = ArchFromString(arch_it->second);
  } catch (const std::invalid_argument& e) {
    return fail(std::string("bad \"arch\": ") + e.what());
  }
  const auto acc_it = stored.metadata.find("test_accuracy");
  if (acc_it == stored.metadata.end()) return fail("metadata has no \"test_accuracy\"");
  if (!ParseAccuracy(acc_it->second, &stored.test_accuracy)) {
    return fail("\"test_accuracy\" " + Shown(acc_it->second) + " is not a finite number in [0, 1]");
  }

  const ZooArch& arch = stored.model.arch;
  stored.model.w.resize(arch.layers.size());
  stored.model.b.resize(arch.layers.size());
  size_t expected_tensors = 0;
  for (size_t l = 0; l < arch.layers.size(); ++l) {
    const ZooLayer& layer = arch.layers[l];
    if (layer.kind == ZooLayerKind::kGlobalAvgPool) continue;
    const std::pair<std::string, std::vector<int64_t>> wanted[2] = {
        {WeightName(l), WeightShape(layer)}, {BiasName(l), {layer.out}}};
    for (int t = 0; t < 2; ++t) {
      const auto& [name, shape] = wanted[t];
      const h::SafetensorsTensor* tensor = file.Find(name);
      if (tensor == nullptr) return fail("tensor \"" + name + "\" is missing (arch " + arch_it->second + ")");
      if (tensor->shape != shape) {
        return fail("tensor \"" + name + "\" has shape " + ShapeText(tensor->shape) + ", the arch needs " +
                    ShapeText(shape));
      }
      std::vector<double> values = file.ReadAsDouble(name);  // its errors name the file
      for (size_t q = 0; q < values.size(); ++q) {
        if (!std::isfinite(values[q])) {
          return fail("tensor \"" + name + "\" has a non-finite value at element " + std::to_string(q));
        }
      }
      (t == 0 ? stored.model.w[l] : stored.model.b[l]) = std::move(values);
      ++expected_tensors;
    }
  }
  if (file.tensors().size() != expected_tensors) {
    for (const h::SafetensorsTensor& tensor : file.tensors()) {
      bool known = false;
      for (size_t l = 0; l < arch.layers.size() && !known; ++l) {
        known = arch.layers[l].kind != ZooLayerKind::kGlobalAvgPool &&
                (tensor.name == WeightName(l) || tensor.name == BiasName(l));
      }
      if (!known) return fail("tensor " + Shown(tensor.name) + " is not part of the arch");
    }
  }
  return stored;
}

std::vector<StoredZooModel> ReadZooDir(const std::string& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  fs::directory_iterator it(dir, ec);
  if (ec) throw std::runtime_error("zoo dir " + dir + ": cannot be read: " + ec.message());
  for (; it != fs::directory_iterator(); it.increment(ec)) {
    if (ec) throw std::runtime_error("zoo dir " + dir + ": cannot be read: " + ec.message());
    const fs::path& p = it->path();
    if (p.extension() == ".safetensors" && it->is_regular_file(ec)) names.push_back(p.filename().string());
  }
  if (ec) throw std::runtime_error("zoo dir " + dir + ": cannot be read: " + ec.message());
  if (names.empty()) throw std::runtime_error("zoo dir " + dir + ": holds no *.safetensors file");
  std::sort(names.begin(), names.end());  // std::string's < compares bytes
  std::vector<StoredZooModel> zoo;
  for (const std::string& name : names) {
    zoo.push_back(ReadZooModel((fs::path(dir) / name).string()));
    const ZooArch& first = zoo.front().model.arch;
    const ZooArch& last = zoo.back().model.arch;
    if (last.channels != first.channels || last.size != first.size || last.classes != first.classes) {
      throw std::runtime_error("zoo model " + zoo.back().path + ": input (" + std::to_string(last.channels) +
                               ", " + std::to_string(last.size) + ") or classes " +
                               std::to_string(last.classes) + " differ from " + zoo.front().path + "'s");
    }
  }
  return zoo;
}

}  // namespace cb::ref::probegen
