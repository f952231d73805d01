// HfFields: typed fields out of a parsed config.json, for the importer's architecture readers
// (core/model/hf_config.cc, core/model/hf_architectures.cc). Internal to core: the JSON library
// stays out of every public header.
//
// Fields are read from the text model's map: `text_config` when the file has one (Gemma-3,
// Mistral-3 and other multimodal wrappers), else the root. Errors are sticky like
// ConfigReader's: the first is kept, later reads return their fallback, and status() names
// the file and the field ("config.json: field 'text_config.num_hidden_layers' must be ...").
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "core/base/status.h"

namespace kvsim {

class HfFields {
 public:
  HfFields(const nlohmann::json& root, std::string file);

  const nlohmann::json& root() const { return root_; }
  const nlohmann::json& text() const { return *text_; }
  const std::string& file() const { return file_; }

  // The value of `key` in the text map, or nullptr when absent or null.
  const nlohmann::json* find(std::string_view key) const;
  // A required positive integer.
  uint32_t need(std::string_view key);
  // An optional non-negative integer; `fallback` when absent or null.
  uint32_t get(std::string_view key, uint32_t fallback);
  // The first key of `keys` that is present (GPT-2's n_embd before hidden_size, ...).
  uint32_t need_any(std::initializer_list<std::string_view> keys);
  bool flag(std::string_view key, bool fallback);
  double number(std::string_view key, double fallback);
  std::string text_field(std::string_view key, const std::string& fallback);
  // A list of strings (layer_types); empty when absent.
  std::vector<std::string> strings(std::string_view key);
  // A list of integers (mlp_only_layers); empty when absent.
  std::vector<uint32_t> integers(std::string_view key);

  // Records an error about `key` (the first one wins).
  void fail(std::string_view key, const std::string& message);
  // The same for an error that names no field.
  void fail(const std::string& message);
  const Status& status() const { return status_; }

 private:
  std::string path(std::string_view key) const;  // "text_config.key" or "key"
  std::string shown(const nlohmann::json& value) const;

  const nlohmann::json& root_;
  const nlohmann::json* text_;
  std::string file_;
  Status status_;
};

}  // namespace kvsim
