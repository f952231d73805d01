#include "simulator/output/chrome_trace_writer.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "core/base/units.h"

namespace kvsim::sim {
namespace {

using nlohmann::ordered_json;

constexpr int kEnginePid = 1;
constexpr int kRequestsPid = 2;
constexpr int kIterationTid = 1;
constexpr int kSwapOutTid = 2;
constexpr int kSwapInTid = 3;
constexpr int kTierLoadTid = 4;
constexpr int kKvInTid = 5;
constexpr int kTierWriteTid = 6;
constexpr int kFirstReplicaPid = 3;

// The engine's threads, by tid (1-based); a lone engine has the first three.
constexpr std::string_view kThreadNames[] = {"iterations",
                                             "swap out (device to host)",
                                             "swap in (host to device)",
                                             "loads from lower KV tiers",
                                             "KV in (from prefill)",
                                             "writes to lower KV tiers"};

double micros(int64_t ns) { return static_cast<double>(ns) / kNsPerUs; }

// {"name":..,"ph":..,"pid":..,"tid":..,"ts":..}, to which callers add their fields.
ordered_json event(std::string_view name, char phase, int pid, int tid, int64_t ts_ns) {
  return {{"name", name},
          {"ph", std::string(1, phase)},
          {"pid", pid},
          {"tid", tid},
          {"ts", micros(ts_ns)}};
}

// A request's async event (pid "requests", id = request id).
ordered_json async_event(std::string_view name, char phase, uint64_t id, int64_t ts_ns) {
  ordered_json out = event(name, phase, kRequestsPid, 1, ts_ns);
  out["cat"] = "request";
  out["id"] = id;
  return out;
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(std::unique_ptr<OutputFile> file, bool cluster)
    : file_(std::move(file)), cluster_(cluster) {
  file_->write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[");
}

StatusOr<std::unique_ptr<ChromeTraceWriter>> ChromeTraceWriter::create(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  std::unique_ptr<ChromeTraceWriter> writer(new ChromeTraceWriter(std::move(file), false));
  writer->name_process(kEnginePid, "engine");
  writer->name_process(kRequestsPid, "requests");
  for (int tid = 1; tid <= kSwapInTid; ++tid) {
    writer->name_thread(kEnginePid, tid, kThreadNames[tid - 1]);
  }
  return writer;
}

StatusOr<std::unique_ptr<ChromeTraceWriter>> ChromeTraceWriter::create(
    const std::string& path, const std::vector<std::string>& replica_names) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  std::unique_ptr<ChromeTraceWriter> writer(new ChromeTraceWriter(std::move(file), true));
  writer->name_process(kRequestsPid, "requests");
  for (size_t r = 0; r < replica_names.size(); ++r) {
    const int pid = kFirstReplicaPid + static_cast<int>(r);
    writer->name_process(pid, "replica " + replica_names[r]);
    for (int tid = 1; tid <= kTierWriteTid; ++tid)
      writer->name_thread(pid, tid, kThreadNames[tid - 1]);
  }
  return writer;
}

int ChromeTraceWriter::engine_pid(int32_t replica) const {
  return cluster_ ? kFirstReplicaPid + std::max(replica, 0) : kEnginePid;
}

void ChromeTraceWriter::name_process(int pid, std::string_view name) {
  write({{"name", "process_name"}, {"ph", "M"}, {"pid", pid}, {"args", {{"name", name}}}});
}

void ChromeTraceWriter::name_thread(int pid, int tid, std::string_view name) {
  write({{"name", "thread_name"},
         {"ph", "M"},
         {"pid", pid},
         {"tid", tid},
         {"args", {{"name", name}}}});
}

void ChromeTraceWriter::write(const ordered_json& event) {
  file_->write(num_events_++ == 0 ? "\n" : ",\n");
  // Invalid UTF-8 (a name from a YAML file) becomes U+FFFD rather than an exception.
  file_->write(event.dump(-1, ' ', false, ordered_json::error_handler_t::replace));
}

void ChromeTraceWriter::on_iteration(const IterationRecord& it, const EngineSnapshot& after) {
  const int pid = engine_pid(static_cast<int32_t>(it.replica));
  ordered_json iteration = event("iteration", 'X', pid, kIterationTid, it.start_ns);
  iteration["dur"] = micros(it.end_ns - it.start_ns);
  iteration["args"] = {{"index", it.index},
                       {"seqs", it.shape.num_seqs},
                       {"prefill_tokens", it.shape.prefill_tokens},
                       {"decode_tokens", it.shape.decode_tokens},
                       {"context_tokens", it.shape.context_tokens}};
  write(iteration);
  ordered_json blocks = event("kv_blocks", 'C', pid, kIterationTid, it.end_ns);
  blocks["args"] = {{"used", after.kv_blocks_used}, {"cached_free", after.kv_blocks_cached_free}};
  write(blocks);
}

void ChromeTraceWriter::on_request_finished(const RequestRecord& r) {
  ordered_json begin = async_event("request", 'b', r.id, r.arrival_ns);
  begin["args"] = {{"prompt_tokens", r.prompt_tokens},
                   {"output_tokens", r.output_tokens},
                   {"cached_prompt_tokens", r.cached_prompt_tokens}};
  write(begin);
  write(async_event("first token", 'n', r.id, *r.first_token_ns));
  write(async_event("request", 'e', r.id, *r.finish_ns));
}

void ChromeTraceWriter::on_request_dropped(const RequestRecord& r, DropReason /*reason*/) {
  write(async_event("dropped request", 'b', r.id, r.arrival_ns));
  write(async_event("dropped request", 'e', r.id, r.arrival_ns));
}

void ChromeTraceWriter::on_transfer(const TransferRecord& t) {
  const int pid = engine_pid(t.to_replica);
  ordered_json transfer =
      t.kind == TransferKind::kSwap       ? event(t.to_host ? "swap out" : "swap in", 'X', pid,
                                            t.to_host ? kSwapOutTid : kSwapInTid, t.start_ns)
      : t.kind == TransferKind::kTierLoad ? event("tier load", 'X', pid, kTierLoadTid, t.start_ns)
      : t.kind == TransferKind::kTierWrite
          ? event("tier write", 'X', pid, kTierWriteTid, t.start_ns)
          : event("kv transfer", 'X', pid, kKvInTid, t.start_ns);
  transfer["dur"] = micros(t.end_ns - t.start_ns);
  transfer["args"] = {{"request", t.request_id}, {"bytes", t.bytes}};
  write(transfer);
}

Status ChromeTraceWriter::finish(const EngineSnapshot& /*last*/) {
  file_->write("\n]}\n");
  return file_->close();
}

}  // namespace kvsim::sim
