#include "core/config/config_node.h"

#include <fmt/format.h>

#include <algorithm>

namespace kvsim {

std::string SourceMark::to_string() const {
  const std::string where = file.empty() ? std::string("<input>") : file;
  if (line <= 0) return where;
  return fmt::format("{}:{}:{}", where, line, column);
}

Status error_at(const SourceMark& mark, const std::string& message) {
  return Status::invalid_argument(mark.to_string() + ": " + message);
}

ConfigNode ConfigNode::null(SourceMark mark) {
  ConfigNode node;
  node.mark_ = std::move(mark);
  return node;
}

ConfigNode ConfigNode::scalar(std::string value, SourceMark mark) {
  ConfigNode node;
  node.kind_ = Kind::kScalar;
  node.text_ = std::move(value);
  node.mark_ = std::move(mark);
  return node;
}

ConfigNode ConfigNode::sequence(SourceMark mark) {
  ConfigNode node;
  node.kind_ = Kind::kSequence;
  node.mark_ = std::move(mark);
  return node;
}

ConfigNode ConfigNode::map(SourceMark mark) {
  ConfigNode node;
  node.kind_ = Kind::kMap;
  node.mark_ = std::move(mark);
  return node;
}

const std::string& ConfigNode::text() const {
  KVSIM_CHECK(is_scalar(), "ConfigNode::text() on a non-scalar");
  return text_;
}

const std::vector<ConfigNode>& ConfigNode::items() const {
  KVSIM_CHECK(is_sequence(), "ConfigNode::items() on a non-sequence");
  return items_;
}

const std::vector<ConfigNode::Entry>& ConfigNode::entries() const {
  KVSIM_CHECK(is_map(), "ConfigNode::entries() on a non-map");
  return entries_;
}

const ConfigNode* ConfigNode::find(std::string_view key) const {
  if (!is_map()) return nullptr;
  for (const Entry& entry : entries_) {
    if (entry.first == key) return &entry.second;
  }
  return nullptr;
}

ConfigNode* ConfigNode::find(std::string_view key) {
  return const_cast<ConfigNode*>(std::as_const(*this).find(key));
}

const ConfigNode* ConfigNode::find_path(std::string_view dotted) const {
  const ConfigNode* node = this;
  while (node != nullptr) {
    const size_t dot = dotted.find('.');
    node = node->find(dotted.substr(0, dot));
    if (dot == std::string_view::npos) return node;
    dotted.remove_prefix(dot + 1);
  }
  return nullptr;
}

void ConfigNode::set(std::string key, ConfigNode value) {
  KVSIM_CHECK(is_map(), "ConfigNode::set() on a non-map");
  if (ConfigNode* existing = find(key)) {
    *existing = std::move(value);
    return;
  }
  entries_.emplace_back(std::move(key), std::move(value));
}

bool ConfigNode::erase(std::string_view key) {
  if (!is_map()) return false;
  const auto it = std::find_if(entries_.begin(), entries_.end(),
                               [&](const Entry& entry) { return entry.first == key; });
  if (it == entries_.end()) return false;
  entries_.erase(it);
  return true;
}

void ConfigNode::push_back(ConfigNode value) {
  KVSIM_CHECK(is_sequence(), "ConfigNode::push_back() on a non-sequence");
  items_.push_back(std::move(value));
}

Status ConfigNode::set_path(std::string_view dotted, ConfigNode value) {
  if (dotted.empty()) return Status::invalid_argument("empty configuration key");
  ConfigNode* node = this;
  std::string walked;
  while (true) {
    if (node->is_null()) node->kind_ = Kind::kMap;
    if (!node->is_map()) {
      return Status::invalid_argument(
          fmt::format("cannot set '{}': '{}' is not a map", dotted, walked));
    }
    const size_t dot = dotted.find('.');
    const std::string key(dotted.substr(0, dot));
    if (key.empty()) return Status::invalid_argument("empty component in configuration key");
    if (dot == std::string_view::npos) {
      node->set(key, std::move(value));
      return Status::ok();
    }
    if (node->find(key) == nullptr) node->set(key, ConfigNode::map());
    node = node->find(key);
    walked += walked.empty() ? key : "." + key;
    dotted.remove_prefix(dot + 1);
  }
}

bool ConfigNode::operator==(const ConfigNode& other) const {
  return kind_ == other.kind_ && text_ == other.text_ && items_ == other.items_ &&
         entries_ == other.entries_;
}

}  // namespace kvsim
