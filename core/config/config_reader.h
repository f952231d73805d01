// ConfigReader: typed, range-checked fields out of one YAML map (a ConfigNode).
//
// Errors are sticky: the first one is kept and every later call does nothing, so a loader
// reads all of its fields in a row and checks status() once at the end. finish() also
// rejects keys nobody asked for (typos) and lists the valid ones. Every message names
// `file:line:column` and what was expected.
//
//   ConfigReader r(node, "model preset");
//   r.required("num_layers", &spec.num_layers, 1u, 4096u);
//   r.optional("sliding_window_tokens", &spec.sliding_window_tokens, 1u, 1u << 30);
//   return r.finish();
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"
#include "core/config/config_node.h"

namespace kvsim {

// Scalar conversions used by the reader, exposed for --set values and CSV fields.
// Integers accept decimal digits or an exact scientific form ("7e9"); no sign for unsigned.
Status parse_uint64(std::string_view text, uint64_t* out);
Status parse_int64(std::string_view text, int64_t* out);
// A finite decimal number.
Status parse_double(std::string_view text, double* out);
// "true"/"false" (also "yes"/"no", "on"/"off").
Status parse_bool(std::string_view text, bool* out);

class ConfigReader {
 public:
  // `node` must outlive the reader. A node that is not a map is an error ("expected a map").
  ConfigReader(const ConfigNode& node, std::string what);

  // Integer and floating-point fields within [min, max].
  void required(std::string_view key, uint32_t* out, uint32_t min, uint32_t max);
  void required(std::string_view key, uint64_t* out, uint64_t min, uint64_t max);
  void required(std::string_view key, double* out, double min, double max);
  void optional(std::string_view key, uint32_t* out, uint32_t min, uint32_t max);
  void optional(std::string_view key, uint64_t* out, uint64_t min, uint64_t max);
  void optional(std::string_view key, int64_t* out, int64_t min, int64_t max);
  void optional(std::string_view key, double* out, double min, double max);
  void required(std::string_view key, std::string* out);
  void optional(std::string_view key, std::string* out);
  void optional(std::string_view key, bool* out);

  // A field parsed by `parse` (an enum, a dtype, ...): Status parse(string_view, T*).
  template <typename T, typename Parse>
  void required_with(std::string_view key, T* out, Parse parse) {
    if (const ConfigNode* node = scalar_field(key, /*required=*/true))
      apply(*node, key, out, parse);
  }
  template <typename T, typename Parse>
  void optional_with(std::string_view key, T* out, Parse parse) {
    if (const ConfigNode* node = scalar_field(key, /*required=*/false))
      apply(*node, key, out, parse);
  }

  // A nested node (map or sequence) for a sub-reader; nullptr when absent or after an error.
  const ConfigNode* child(std::string_view key);
  // Marks `key` as known without reading it (a caller handles it elsewhere).
  void allow(std::string_view key);
  bool has(std::string_view key) const;

  // Records an error at `node` (for checks across fields); the first error wins.
  void fail(const ConfigNode& node, const std::string& message);
  void fail(const std::string& message);  // at the map itself

  // Ok, or the first error; after the fields, checks for unknown keys.
  Status finish();
  const Status& status() const { return status_; }
  const ConfigNode& node() const { return node_; }

 private:
  const ConfigNode* scalar_field(std::string_view key, bool required);
  template <typename T>
  void read_number(std::string_view key, T* out, T min, T max, bool required);

  template <typename T, typename Parse>
  void apply(const ConfigNode& node, std::string_view key, T* out, Parse parse) {
    T value{};
    Status parsed = parse(std::string_view(node.text()), &value);
    if (!parsed.is_ok()) {
      fail(node, "field '" + std::string(key) + "': " + parsed.message());
      return;
    }
    *out = value;
  }

  const ConfigNode& node_;
  std::string what_;
  std::vector<std::string> known_;
  Status status_;
};

}  // namespace kvsim
