#include "cli/progress_bar.h"

#include <cmath>

#include "core/base/text_format.h"
#include "core/base/units.h"

namespace kvsim::sim {
namespace {

constexpr int kBarWidth = 30;

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  if (seconds < 60) return format_fixed(seconds, 0) + " s";
  if (seconds < 3600) return format_fixed(seconds / 60, 1) + " min";
  return format_fixed(seconds / 3600, 1) + " h";
}

}  // namespace

ProgressBar::ProgressBar(std::FILE* out, bool terminal)
    : out_(out),
      terminal_(terminal),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

std::string ProgressBar::render(const Progress& p, double elapsed_s) {
  const int filled = static_cast<int>(std::lround(p.fraction * kBarWidth));
  std::string text = "[";
  for (int i = 0; i < kBarWidth; ++i) text += i < filled ? '#' : '.';
  text += "] " + format_fixed(p.fraction * 100, 0) + "%  sim " +
          format_duration(ns_to_s(p.sim_time_ns)) + "  " + format_count(p.completed) + " done";
  if (p.dropped > 0) text += ", " + format_count(p.dropped) + " dropped";
  const double eta = p.fraction > 0 ? elapsed_s * (1 - p.fraction) / p.fraction : NAN;
  text += "  ETA " + format_duration(eta);
  return text;
}

void ProgressBar::update(const Progress& progress) {
  last_ = progress;
  const auto now = std::chrono::steady_clock::now();
  const double since_draw = std::chrono::duration<double>(now - last_draw_).count();
  if (since_draw < (terminal_ ? 0.1 : 5.0)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  const std::string text = render(progress, elapsed);
  if (terminal_) {
    std::fprintf(out_, "\r%s\033[K", text.c_str());
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  Progress done = last_;
  done.fraction = 1.0;
  std::fprintf(out_, terminal_ ? "\r%s\033[K\n" : "%s\n", render(done, elapsed).c_str());
  std::fflush(out_);
}

}  // namespace kvsim::sim
