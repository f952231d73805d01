#include "simulator/output/chrome_trace_writer.h"

#include <algorithm>

namespace kvsim::sim {
namespace {

constexpr int kEnginePid = 1;
constexpr int kRequestsPid = 2;
constexpr int kIterationTid = 1;
constexpr int kSwapOutTid = 2;
constexpr int kSwapInTid = 3;
constexpr int kTierLoadTid = 4;
constexpr int kKvInTid = 5;
constexpr int kTierWriteTid = 6;
constexpr int kFirstReplicaPid = 3;

const char* const kMetadata =
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"engine\"}},\n"
    "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"requests\"}},\n"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"iterations\"}}"
    ",\n"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":2,"
    "\"args\":{\"name\":\"swap out (device to host)\"}},\n"
    "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":1,\"tid\":3,"
    "\"args\":{\"name\":\"swap in (host to device)\"}}";

}  // namespace

StatusOr<std::unique_ptr<ChromeTraceWriter>> ChromeTraceWriter::create(const std::string& path) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  file->write(kMetadata);
  return std::unique_ptr<ChromeTraceWriter>(new ChromeTraceWriter(std::move(file), false));
}

StatusOr<std::unique_ptr<ChromeTraceWriter>> ChromeTraceWriter::create(
    const std::string& path, const std::vector<std::string>& replica_names) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  file->write(
      "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":\"requests\"}}");
  const char* const threads[] = {"iterations",
                                 "swap out (device to host)",
                                 "swap in (host to device)",
                                 "loads from lower KV tiers",
                                 "KV in (from prefill)",
                                 "writes to lower KV tiers"};
  for (size_t r = 0; r < replica_names.size(); ++r) {
    const std::string pid = std::to_string(kFirstReplicaPid + r);
    file->write(",\n{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + pid +
                ",\"args\":{\"name\":\"replica " + replica_names[r] + "\"}}");
    for (int tid = 1; tid <= kTierWriteTid; ++tid) {
      file->write(",\n{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + pid + ",\"tid\":" +
                  std::to_string(tid) + ",\"args\":{\"name\":\"" + threads[tid - 1] + "\"}}");
    }
  }
  return std::unique_ptr<ChromeTraceWriter>(new ChromeTraceWriter(std::move(file), true));
}

int ChromeTraceWriter::engine_pid(int32_t replica) const {
  return cluster_ ? kFirstReplicaPid + std::max(replica, 0) : kEnginePid;
}

void ChromeTraceWriter::begin_event(std::string_view name, char phase, int pid, int tid,
                                    int64_t ts_ns) {
  OutputFile& f = *file_;
  f.write(",\n{\"name\":\"");
  f.write(name);
  f.write("\",\"ph\":\"");
  f.write(std::string_view(&phase, 1));
  f.write("\",\"pid\":");
  f.write_int(pid);
  f.write(",\"tid\":");
  f.write_int(tid);
  f.write(",\"ts\":");
  f.write_double(static_cast<double>(ts_ns) / 1e3);
}

void ChromeTraceWriter::async_event(std::string_view name, char phase, uint64_t id, int64_t ts_ns) {
  begin_event(name, phase, kRequestsPid, 1, ts_ns);
  file_->write(",\"cat\":\"request\",\"id\":");
  file_->write_uint(id);
}

void ChromeTraceWriter::on_iteration(const IterationRecord& it, const EngineSnapshot& after) {
  OutputFile& f = *file_;
  const int pid = engine_pid(static_cast<int32_t>(it.replica));
  begin_event("iteration", 'X', pid, kIterationTid, it.start_ns);
  f.write(",\"dur\":");
  f.write_double(static_cast<double>(it.end_ns - it.start_ns) / 1e3);
  f.write(",\"args\":{\"index\":");
  f.write_uint(it.index);
  f.write(",\"seqs\":");
  f.write_uint(it.shape.num_seqs);
  f.write(",\"prefill_tokens\":");
  f.write_uint(it.shape.prefill_tokens);
  f.write(",\"decode_tokens\":");
  f.write_uint(it.shape.decode_tokens);
  f.write(",\"context_tokens\":");
  f.write_uint(it.shape.context_tokens);
  f.write("}}");
  begin_event("kv_blocks", 'C', pid, kIterationTid, it.end_ns);
  f.write(",\"args\":{\"used\":");
  f.write_uint(after.kv_blocks_used);
  f.write(",\"cached_free\":");
  f.write_uint(after.kv_blocks_cached_free);
  f.write("}}");
}

void ChromeTraceWriter::on_request_finished(const RequestRecord& r) {
  async_event("request", 'b', r.id, r.arrival_ns);
  file_->write(",\"args\":{\"prompt_tokens\":");
  file_->write_uint(r.prompt_tokens);
  file_->write(",\"output_tokens\":");
  file_->write_uint(r.output_tokens);
  file_->write(",\"cached_prompt_tokens\":");
  file_->write_uint(r.cached_prompt_tokens);
  file_->write("}}");
  async_event("first token", 'n', r.id, r.first_token_ns);
  file_->write("}");
  async_event("request", 'e', r.id, r.finish_ns);
  file_->write("}");
}

void ChromeTraceWriter::on_request_dropped(const RequestRecord& r, DropReason /*reason*/) {
  async_event("dropped request", 'b', r.id, r.arrival_ns);
  file_->write("}");
  async_event("dropped request", 'e', r.id, r.arrival_ns);
  file_->write("}");
}

void ChromeTraceWriter::on_transfer(const TransferRecord& t) {
  const int pid = engine_pid(t.to_replica);
  if (t.kind == TransferKind::kSwap) {
    begin_event(t.to_host ? "swap out" : "swap in", 'X', pid, t.to_host ? kSwapOutTid : kSwapInTid,
                t.start_ns);
  } else if (t.kind == TransferKind::kTierLoad) {
    begin_event("tier load", 'X', pid, kTierLoadTid, t.start_ns);
  } else if (t.kind == TransferKind::kTierWrite) {
    begin_event("tier write", 'X', pid, kTierWriteTid, t.start_ns);
  } else {
    begin_event("kv transfer", 'X', pid, kKvInTid, t.start_ns);
  }
  file_->write(",\"dur\":");
  file_->write_double(static_cast<double>(t.end_ns - t.start_ns) / 1e3);
  file_->write(",\"args\":{\"request\":");
  file_->write_uint(t.request_id);
  file_->write(",\"bytes\":");
  file_->write_uint(t.bytes);
  file_->write("}}");
}

Status ChromeTraceWriter::finish(const EngineSnapshot& /*last*/) {
  file_->write("\n]}\n");
  return file_->close();
}

}  // namespace kvsim::sim
