#include "core/config/yaml_io.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <sstream>

namespace kvsim {
namespace {

SourceMark to_mark(const YAML::Mark& mark, const std::string& file) {
  // yaml-cpp marks are 0-based and -1 when unknown.
  return SourceMark{file, mark.line < 0 ? 0 : mark.line + 1, mark.column < 0 ? 0 : mark.column + 1};
}

class Converter {
 public:
  explicit Converter(const std::string& file) : file_(file) {}

  Status convert(const YAML::Node& node, int depth, ConfigNode* out) {
    const SourceMark mark = to_mark(node.Mark(), file_);
    if (depth > kMaxYamlDepth) {
      return error_at(mark, fmt::format("YAML nested deeper than {}", kMaxYamlDepth));
    }
    if (++num_nodes_ > kMaxYamlNodes) {
      return error_at(mark, fmt::format("YAML has more than {} nodes once aliases are expanded",
                                        kMaxYamlNodes));
    }
    switch (node.Type()) {
      case YAML::NodeType::Scalar:
        *out = ConfigNode::scalar(node.Scalar(), mark);
        return Status::ok();
      case YAML::NodeType::Sequence:
        return convert_sequence(node, depth, mark, out);
      case YAML::NodeType::Map:
        return convert_map(node, depth, mark, out);
      case YAML::NodeType::Null:
      case YAML::NodeType::Undefined:
        *out = ConfigNode::null(mark);
        return Status::ok();
    }
    return error_at(mark, "unsupported YAML node");
  }

 private:
  Status convert_sequence(const YAML::Node& node, int depth, const SourceMark& mark,
                          ConfigNode* out) {
    *out = ConfigNode::sequence(mark);
    for (const YAML::Node& item : node) {
      ConfigNode child;
      KVSIM_RETURN_IF_ERROR(convert(item, depth + 1, &child));
      out->push_back(std::move(child));
    }
    return Status::ok();
  }

  Status convert_map(const YAML::Node& node, int depth, const SourceMark& mark, ConfigNode* out) {
    *out = ConfigNode::map(mark);
    for (const auto& entry : node) {
      const SourceMark key_mark = to_mark(entry.first.Mark(), file_);
      if (!entry.first.IsScalar()) return error_at(key_mark, "map keys must be plain scalars");
      const std::string key = entry.first.Scalar();
      if (out->find(key) != nullptr) return error_at(key_mark, "duplicate key '" + key + "'");
      ConfigNode child;
      KVSIM_RETURN_IF_ERROR(convert(entry.second, depth + 1, &child));
      out->set(key, std::move(child));
    }
    return Status::ok();
  }

  const std::string& file_;
  size_t num_nodes_ = 0;
};

void emit(const ConfigNode& node, YAML::Emitter& out) {
  switch (node.kind()) {
    case ConfigNode::Kind::kNull:
      out << YAML::Null;
      return;
    case ConfigNode::Kind::kScalar:
      out << node.text();
      return;
    case ConfigNode::Kind::kSequence:
      out << YAML::BeginSeq;
      for (const ConfigNode& item : node.items()) emit(item, out);
      out << YAML::EndSeq;
      return;
    case ConfigNode::Kind::kMap:
      out << YAML::BeginMap;
      for (const ConfigNode::Entry& entry : node.entries()) {
        out << YAML::Key << entry.first << YAML::Value;
        emit(entry.second, out);
      }
      out << YAML::EndMap;
      return;
  }
}

}  // namespace

StatusOr<ConfigNode> parse_yaml(std::string_view text, const std::string& file_name) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& error) {
    return Status::parse_error(to_mark(error.mark, file_name).to_string() +
                               ": invalid YAML: " + error.msg);
  } catch (const std::exception& error) {
    return Status::parse_error(file_name + ": invalid YAML: " + error.what());
  }
  ConfigNode out;
  try {
    Converter converter(file_name);
    KVSIM_RETURN_IF_ERROR(converter.convert(root, 0, &out));
  } catch (const YAML::Exception& error) {
    return Status::parse_error(to_mark(error.mark, file_name).to_string() +
                               ": invalid YAML: " + error.msg);
  }
  return out;
}

StatusOr<ConfigNode> read_yaml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::not_found("cannot open '" + path + "'");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return Status::io_error("cannot read '" + path + "'");
  return parse_yaml(text.str(), path);
}

std::string to_yaml(const ConfigNode& node) {
  YAML::Emitter out;
  emit(node, out);
  std::string text = out.c_str();
  if (!text.empty() && text.back() != '\n') text += '\n';
  return text;
}

}  // namespace kvsim
