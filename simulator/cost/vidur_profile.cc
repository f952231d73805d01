#include "simulator/cost/vidur_profile.h"

#include <algorithm>
#include <filesystem>

#include "core/config/config_reader.h"
#include "simulator/io/csv_row.h"
#include "simulator/io/line_reader.h"

namespace kvsim::sim {
namespace {

namespace fs = std::filesystem;
constexpr double kMs = 1e-3;

const std::vector<std::string> kMlpOps = {
    "emb",         "input_layernorm", "attn_pre_proj",
    "attn_rope",   "attn_post_proj",  "post_attention_layernorm",
    "mlp_up_proj", "mlp_act",         "mlp_down_proj",
    "add"};

std::string median(const std::string& op) { return "time_stats." + op + ".median"; }

bool same(std::string_view cell, const std::string& wanted) {
  double a = 0, b = 0;
  if (parse_double(cell, &a).is_ok() && parse_double(wanted, &b).is_ok()) return a == b;
  return cell == wanted;
}

std::vector<std::string> sorted_files(const fs::path& dir, const std::string& prefix) {
  std::vector<std::string> out;
  std::error_code error;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    const std::string name = entry.path().filename().string();
    if (entry.is_regular_file() && name.rfind(prefix, 0) == 0 && entry.path().extension() == ".csv")
      out.push_back(entry.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The geometry in an mlp.csv's first row.
StatusOr<ProfileGeometry> geometry_of(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(
      auto rows,
      read_profile_rows(path, {}, {"n_embd", "n_head", "n_kv_head", "n_expanded_embd"}, 1));
  if (rows.empty()) return Status::parse_error(path + ": no rows");
  ProfileGeometry g;
  g.hidden = static_cast<uint64_t>(rows[0][0]);
  g.heads = static_cast<uint64_t>(rows[0][1]);
  g.kv_heads = static_cast<uint64_t>(rows[0][2]);
  g.ffn = static_cast<uint64_t>(rows[0][3]);
  return g;
}

StatusOr<std::vector<std::string_view>> header_fields(LineReader* lines,
                                                      std::vector<std::string_view>* fields,
                                                      std::string* scratch) {
  std::string_view line;
  KVSIM_ASSIGN_OR_RETURN(const bool more, lines->next(&line));
  if (!more || !split_csv_line(line, fields, scratch)) {
    return Status::parse_error(lines->path() + ":1: expected a CSV header (a Vidur profile)");
  }
  return *fields;
}

}  // namespace

std::string ProfileGeometry::describe() const {
  return "hidden " + std::to_string(hidden) + ", " + std::to_string(heads) + " heads, " +
         std::to_string(kv_heads) + " KV heads" + (ffn > 0 ? ", FFN " + std::to_string(ffn) : "");
}

StatusOr<std::vector<std::string>> read_profile_header(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  std::vector<std::string_view> fields;
  std::string scratch;
  KVSIM_ASSIGN_OR_RETURN(auto names, header_fields(lines.get(), &fields, &scratch));
  return std::vector<std::string>(names.begin(), names.end());
}

StatusOr<std::vector<std::vector<double>>> read_profile_rows(
    const std::string& path, const ProfileFilter& filter, const std::vector<std::string>& columns,
    size_t max_rows) {
  KVSIM_ASSIGN_OR_RETURN(auto lines, LineReader::open(path));
  std::string_view line;
  std::vector<std::string_view> fields;
  std::string scratch;
  KVSIM_ASSIGN_OR_RETURN(auto names, header_fields(lines.get(), &fields, &scratch));
  const CsvHeader header(names);
  bool more = true;
  std::vector<int> filter_at, column_at;
  for (const auto& [name, value] : filter) {
    KVSIM_ASSIGN_OR_RETURN(const int at, header.require(name, path + ":1"));
    filter_at.push_back(at);
  }
  for (const std::string& name : columns) {
    KVSIM_ASSIGN_OR_RETURN(const int at, header.require(name, path + ":1"));
    column_at.push_back(at);
  }
  std::vector<std::vector<double>> rows;
  while (max_rows == 0 || rows.size() < max_rows) {
    KVSIM_ASSIGN_OR_RETURN(more, lines->next_non_blank(&line, " \t,"));
    if (!more) break;
    if (!split_csv_line(line, &fields, &scratch) || fields.size() < header.size()) {
      return Status::parse_error(lines->where() + ": expected " + std::to_string(header.size()) +
                                 " columns, got " + std::to_string(fields.size()));
    }
    bool keep = true;
    for (size_t i = 0; i < filter.size() && keep; ++i) {
      keep = same(fields[static_cast<size_t>(filter_at[i])], filter[i].second);
    }
    if (!keep) continue;
    std::vector<double> values(columns.size());
    for (size_t i = 0; i < columns.size(); ++i) {
      const Status parsed =
          parse_number_field(fields[static_cast<size_t>(column_at[i])], columns[i], &values[i]);
      if (!parsed.is_ok()) return parsed.with_context(lines->where());
    }
    rows.push_back(std::move(values));
  }
  return rows;
}

StatusOr<std::string> find_mlp_profile(const std::string& dir, const std::string& device,
                                       const ProfileGeometry& geometry) {
  const fs::path compute = fs::path(dir) / "compute" / device;
  std::error_code error;
  if (!fs::is_directory(compute, error)) {
    std::string found;
    for (const auto& entry : fs::directory_iterator(fs::path(dir) / "compute", error)) {
      found += (found.empty() ? "" : ", ") + entry.path().filename().string();
    }
    return Status::not_found(compute.string() + ": no such folder (devices in the profile: " +
                             (found.empty() ? "none" : found) + ")");
  }
  std::string seen;
  std::vector<std::string> candidates;
  for (const auto& org : fs::directory_iterator(compute, error)) {
    for (const auto& model : fs::directory_iterator(org.path(), error)) {
      const fs::path mlp = model.path() / "mlp.csv";
      if (fs::is_regular_file(mlp, error)) candidates.push_back(mlp.string());
    }
  }
  std::sort(candidates.begin(), candidates.end());
  for (const std::string& path : candidates) {
    KVSIM_ASSIGN_OR_RETURN(const ProfileGeometry g, geometry_of(path));
    if (g.hidden == geometry.hidden && g.heads == geometry.heads &&
        g.kv_heads == geometry.kv_heads && g.ffn == geometry.ffn) {
      return path;
    }
    seen += "\n  " + path + ": " + g.describe();
  }
  return Status::not_found("no mlp.csv under " + compute.string() + " has " + geometry.describe() +
                           "; found:" + (seen.empty() ? " none" : seen));
}

StatusOr<std::map<std::string, ProfileGrid>> read_mlp_profile(const std::string& path,
                                                              uint32_t tp) {
  // phi-2 has no post_attention_layernorm: an op whose column is missing takes no time.
  KVSIM_ASSIGN_OR_RETURN(const auto header, read_profile_header(path));
  std::vector<std::string> present = {"num_tokens"};
  std::vector<std::string> ops;
  for (const std::string& op : kMlpOps) {
    if (std::find(header.begin(), header.end(), median(op)) != header.end()) {
      present.push_back(median(op));
      ops.push_back(op);
    }
  }
  if (ops.empty()) {
    return Status::parse_error(path +
                               ":1: expected columns time_stats.<op>.median for the "
                               "ops emb, input_layernorm, attn_pre_proj, ... (a Vidur mlp.csv)");
  }
  KVSIM_ASSIGN_OR_RETURN(
      auto rows,
      read_profile_rows(path, {{"num_tensor_parallel_workers", std::to_string(tp)}}, present));
  if (rows.empty()) {
    return Status::not_found(path +
                             ": no rows with num_tensor_parallel_workers = " + std::to_string(tp));
  }
  std::map<std::string, ProfileGrid> grids;
  for (const auto& row : rows) {
    for (size_t i = 0; i < ops.size(); ++i) grids[ops[i]].add(row[0], row[i + 1] * kMs);
  }
  return grids;
}

StatusOr<AttentionProfile> read_attention_profile(const std::string& mlp_path,
                                                  const ProfileGeometry& geometry, uint32_t tp) {
  const fs::path folder = fs::path(mlp_path).parent_path();
  const ProfileFilter filter = {{"n_embd", std::to_string(geometry.hidden)},
                                {"n_q_head", std::to_string(geometry.heads)},
                                {"n_kv_head", std::to_string(geometry.kv_heads)},
                                {"num_tensor_parallel_workers", std::to_string(tp)}};
  for (const std::string& path : sorted_files(folder, "attention")) {
    ProfileFilter decode = filter, prefill = filter;
    decode.emplace_back("is_prefill", "False");
    prefill.emplace_back("is_prefill", "True");
    KVSIM_ASSIGN_OR_RETURN(
        auto d,
        read_profile_rows(path, decode, {"batch_size", "kv_cache_size", median("attn_decode")}));
    KVSIM_ASSIGN_OR_RETURN(
        auto p, read_profile_rows(path, prefill,
                                  {"prefill_chunk_size", "kv_cache_size", median("attn_prefill")}));
    if (d.empty() || p.empty()) continue;
    AttentionProfile out;
    for (const auto& r : d) out.decode.add(r[0], r[1], r[2] * kMs);
    for (const auto& r : p) out.prefill.add(r[0], r[1], r[2] * kMs);
    return out;
  }
  return Status::not_found(
      folder.string() + ": no attention*.csv with decode and prefill rows for " +
      geometry.describe() + " at num_tensor_parallel_workers = " + std::to_string(tp) +
      " (Vidur's attention.csv for this model and TP)");
}

StatusOr<ProfileGrid> read_all_reduce_profile(const std::string& path, uint32_t tp) {
  const std::string n = std::to_string(tp);
  KVSIM_ASSIGN_OR_RETURN(
      auto rows,
      read_profile_rows(path, {{"rank", "0"}, {"num_workers", n}, {"devices_per_node", n}},
                        {"size", median("all_reduce")}));
  if (rows.empty()) {
    return Status::not_found(path + ": no rows with num_workers = devices_per_node = " + n +
                             " (rank 0)");
  }
  ProfileGrid grid;
  for (const auto& r : rows) grid.add(r[0], r[1] * kMs);
  return grid;
}

}  // namespace kvsim::sim
