#include "simulator/workload/trace_source.h"

#include <cmath>

namespace kvsim::sim {
namespace {

// Simulated time stays far from int64 overflow: 100 years in ns.
constexpr double kMaxArrivalNs = 3.15576e18;

}  // namespace

TraceSource::TraceSource(std::unique_ptr<TraceReader> reader, TraceSourceOptions options)
    : reader_(std::move(reader)), options_(options) {}

Status TraceSource::bad_row(const Status& error) {
  if (!options_.skip_bad_rows || error.code() == StatusCode::kIoError) return error;
  if (stats_.rows_skipped_bad == 0) stats_.first_bad_row = error.message();
  ++stats_.rows_skipped_bad;
  return Status::ok();
}

Status TraceSource::fill(TraceRow* row, RequestSpec* out) {
  if (started_ && row->timestamp_ns < last_ns_) {
    return Status::parse_error(reader_->lines().where() +
                               ": timestamp goes back in time; rows must be in arrival order");
  }
  if (!started_) {
    started_ = true;
    first_ns_ = row->timestamp_ns;
  }
  last_ns_ = row->timestamp_ns;
  const double arrival_ns =
      static_cast<double>(row->timestamp_ns - first_ns_) * options_.time_scale;
  if (arrival_ns > kMaxArrivalNs) {
    return Status::invalid_argument(reader_->lines().where() +
                                    ": arrival more than a century after the first row; "
                                    "lower workload.time_scale");
  }
  out->id = produced_++;
  out->arrival_ns = std::llround(arrival_ns);
  out->prompt_tokens = static_cast<uint32_t>(row->prompt_tokens);
  out->output_tokens = static_cast<uint32_t>(row->output_tokens);
  out->hash_ids.swap(row->hash_ids);
  out->hash_block_tokens = out->hash_ids.empty() ? 0 : kMooncakeHashBlockTokens;
  out->prefix_group = row->prefix_group;
  out->acceptance = row->acceptance;
  out->content_id.reset();
  out->prefix_tokens = 0;
  if (row->prefix_group) {
    const uint64_t tokens =
        row->prefix_tokens > 0 ? row->prefix_tokens : options_.default_prefix_tokens;
    out->prefix_tokens = static_cast<uint32_t>(std::min<uint64_t>(tokens, row->prompt_tokens));
  }
  return Status::ok();
}

StatusOr<bool> TraceSource::next(RequestSpec* out) {
  if (options_.max_requests > 0 && produced_ >= options_.max_requests) return false;
  for (;;) {
    StatusOr<bool> more = reader_->next_row(&row_);
    if (!more.is_ok()) {
      ++stats_.rows_read;
      KVSIM_RETURN_IF_ERROR(bad_row(more.status()));
      continue;
    }
    if (!*more) return false;
    ++stats_.rows_read;
    if (row_.failed) {
      ++stats_.rows_failed;
      continue;
    }
    const Status filled = fill(&row_, out);
    if (filled.is_ok()) return true;
    KVSIM_RETURN_IF_ERROR(bad_row(filled));
  }
}

double TraceSource::fraction_consumed() const {
  if (options_.max_requests > 0) {
    return static_cast<double>(produced_) / static_cast<double>(options_.max_requests);
  }
  const uint64_t total = reader_->lines().file_bytes();
  return total == 0
             ? 0.0
             : static_cast<double>(reader_->lines().bytes_consumed()) / static_cast<double>(total);
}

std::optional<uint64_t> TraceSource::expected_count() const {
  if (options_.max_requests > 0) return options_.max_requests;
  return std::nullopt;
}

StatusOr<std::unique_ptr<RequestSource>> open_trace_source(const std::string& path,
                                                           TraceFormat format,
                                                           const TraceSourceOptions& options) {
  KVSIM_ASSIGN_OR_RETURN(auto reader, open_trace_reader(path, format));
  return std::unique_ptr<RequestSource>(new TraceSource(std::move(reader), options));
}

}  // namespace kvsim::sim
