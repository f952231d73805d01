// ProgressBar: a run's progress on stderr.
//
// On a terminal it redraws one line ("[#####.....]  48%  sim 1,234 s  5,678 done  ETA 12 s")
// at most ten times a second; elsewhere (a log file, CI) it prints a plain line at most every
// five seconds. ETA = elapsed x (1 - done) / done. The engine calls update() with
// simulator/engine/engine.h's Progress; finish() ends the line.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

#include "simulator/engine/engine.h"

namespace kvsim::sim {

class ProgressBar {
 public:
  ProgressBar(std::FILE* out, bool terminal);
  void update(const Progress& progress);
  void finish();

  // The bar's text for a fraction, elapsed wall seconds and a progress report (no newline).
  static std::string render(const Progress& progress, double elapsed_s);

 private:
  std::FILE* out_;
  bool terminal_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_draw_;
  Progress last_;
};

}  // namespace kvsim::sim
