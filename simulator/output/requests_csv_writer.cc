#include "simulator/output/requests_csv_writer.h"

#include "simulator/output/request_latency.h"

namespace kvsim::sim {

StatusOr<std::unique_ptr<RequestsCsvWriter>> RequestsCsvWriter::create(const std::string& path,
                                                                       bool cluster_columns) {
  KVSIM_ASSIGN_OR_RETURN(auto file, OutputFile::create(path));
  file->write(
      "id,arrival_s,prompt_tokens,output_tokens,cached_prompt_tokens,ttft_s,tpot_s,"
      "e2e_s,preemptions");
  file->write(cluster_columns ? ",replica,prefill_replica,kv_transfer_s\n" : "\n");
  return std::unique_ptr<RequestsCsvWriter>(
      new RequestsCsvWriter(std::move(file), cluster_columns));
}

void RequestsCsvWriter::on_request_finished(const RequestRecord& r) {
  const RequestLatency latency = latency_of(r);
  OutputFile& f = *file_;
  f.write_uint(r.id);
  f.write(",");
  f.write_double(ns_to_s(r.arrival_ns));
  f.write(",");
  f.write_uint(r.prompt_tokens);
  f.write(",");
  f.write_uint(r.output_tokens);
  f.write(",");
  f.write_uint(r.cached_prompt_tokens);
  f.write(",");
  f.write_double(latency.ttft_s);
  f.write(",");
  if (latency.tpot_s) f.write_double(*latency.tpot_s);
  f.write(",");
  f.write_double(latency.e2e_s);
  f.write(",");
  f.write_uint(r.preemptions);
  if (cluster_columns_) {
    f.write(",");
    f.write_int(r.replica);
    f.write(",");
    f.write_int(r.prefill_replica);
    f.write(",");
    if (r.prefilled_ns && r.kv_arrived_ns) {
      f.write_double(ns_to_s(*r.kv_arrived_ns - *r.prefilled_ns));
    }
  }
  f.write("\n");
}

Status RequestsCsvWriter::finish(const EngineSnapshot& /*last*/) { return file_->close(); }

}  // namespace kvsim::sim
