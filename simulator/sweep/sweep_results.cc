#include "simulator/sweep/sweep_results.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <set>

#include "simulator/io/atomic_file.h"

namespace kvsim::sim {
namespace {

using nlohmann::json;

// RFC 4180 quoting: fields with a comma, quote or line break are quoted, quotes doubled.
std::string csv_field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string metric_text(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.10g", value);
  return buffer;
}

json point_header(const PointRecord& record) {
  return json{{"index", record.index}, {"id", record.id}, {"name", record.name}};
}

}  // namespace

std::string point_record_json(const PointRecord& record) {
  json out = point_header(record);
  out["status"] = record.ok ? "ok" : "error";
  out["error"] = record.error;
  if (!record.binding.empty()) out["binding"] = record.binding;
  json values = json::array();
  for (const auto& [key, text] : record.values)
    values.push_back(json{{"key", key}, {"value", text}});
  out["values"] = values;
  out["metrics"] = record.metrics;
  return out.dump(2) + "\n";
}

StatusOr<PointRecord> parse_point_record(const std::string& json_text, const std::string& where) {
  const json in = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  try {
    if (in.is_discarded()) throw std::runtime_error("not JSON");
    PointRecord record;
    record.index = in.at("index").get<size_t>();
    record.id = in.at("id").get<std::string>();
    record.name = in.at("name").get<std::string>();
    record.ok = in.at("status").get<std::string>() == "ok";
    record.error = in.at("error").get<std::string>();
    record.binding = in.value("binding", std::string());
    for (const json& value : in.at("values")) {
      record.values.emplace_back(value.at("key").get<std::string>(),
                                 value.at("value").get<std::string>());
    }
    record.metrics = in.at("metrics").get<FlatMetrics>();
    return record;
  } catch (const std::exception& error) {
    return Status::parse_error(where + ": not a sweep point result: " + error.what());
  }
}

std::string manifest_json(const SweepManifest& manifest) {
  json points = json::array();
  for (const PointRecord& point : manifest.points) points.push_back(point_header(point));
  const json out = {{"source", manifest.source},
                    {"kind", manifest.kind},
                    {"keys", manifest.keys},
                    {"shard", fmt::format("{}/{}", manifest.shard_index, manifest.shard_count)},
                    {"points", points}};
  return out.dump(2) + "\n";
}

StatusOr<SweepManifest> parse_manifest(const std::string& json_text, const std::string& where) {
  const json in = json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  try {
    if (in.is_discarded()) throw std::runtime_error("not JSON");
    SweepManifest manifest;
    manifest.source = in.at("source").get<std::string>();
    manifest.kind = in.at("kind").get<std::string>();
    manifest.keys = in.at("keys").get<std::vector<std::string>>();
    const std::string shard = in.at("shard").get<std::string>();
    if (std::sscanf(shard.c_str(), "%zu/%zu", &manifest.shard_index, &manifest.shard_count) != 2) {
      throw std::runtime_error("bad shard '" + shard + "'");
    }
    for (const json& point : in.at("points")) {
      PointRecord record;
      record.index = point.at("index").get<size_t>();
      record.id = point.at("id").get<std::string>();
      record.name = point.at("name").get<std::string>();
      manifest.points.push_back(std::move(record));
    }
    return manifest;
  } catch (const std::exception& error) {
    return Status::parse_error(where + ": not a sweep manifest: " + error.what());
  }
}

std::string summary_csv(const std::vector<std::string>& keys,
                        const std::vector<PointRecord>& records) {
  std::set<std::string> metric_keys;
  for (const PointRecord& record : records) {
    for (const auto& [key, value] : record.metrics) metric_keys.insert(key);
  }
  std::string out = "point_id,point_name,status,error";
  for (const std::string& key : keys) out += "," + csv_field(key);
  for (const std::string& key : metric_keys) out += "," + csv_field(key);
  out += "\n";
  for (const PointRecord& record : records) {
    out += record.id + "," + csv_field(record.name) + "," + (record.ok ? "ok" : "error") + "," +
           csv_field(record.error);
    for (const std::string& key : keys) {
      const auto value = std::find_if(record.values.begin(), record.values.end(),
                                      [&](const auto& entry) { return entry.first == key; });
      out += "," + (value != record.values.end() ? csv_field(value->second) : std::string());
    }
    for (const std::string& key : metric_keys) {
      const auto metric = record.metrics.find(key);
      out += "," + (metric != record.metrics.end() ? metric_text(metric->second) : std::string());
    }
    out += "\n";
  }
  return out;
}

StatusOr<std::vector<PointRecord>> read_point_records(const std::filesystem::path& out_dir) {
  std::vector<PointRecord> records;
  const std::filesystem::path points_dir = out_dir / "points";
  std::error_code error;
  if (!std::filesystem::is_directory(points_dir, error)) return records;
  for (const auto& entry : std::filesystem::directory_iterator(points_dir, error)) {
    if (!entry.is_directory() || entry.path().filename().string().starts_with(".")) continue;
    const std::filesystem::path result = entry.path() / "result.json";
    if (!std::filesystem::exists(result)) continue;
    KVSIM_ASSIGN_OR_RETURN(std::string text, read_file(result));
    KVSIM_ASSIGN_OR_RETURN(PointRecord record, parse_point_record(text, result.string()));
    records.push_back(std::move(record));
  }
  if (error) {
    return Status::io_error(
        fmt::format("cannot list '{}': {}", points_dir.string(), error.message()));
  }
  std::sort(records.begin(), records.end(),
            [](const PointRecord& a, const PointRecord& b) { return a.index < b.index; });
  return records;
}

}  // namespace kvsim::sim
