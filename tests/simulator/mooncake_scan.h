// An independent scan of a Mooncake trace's hash_ids: the share of prompt tokens a prefix
// cache that never evicts serves, computed from the trace alone (no kvsim code) — what the
// simulator's hit rate must equal when nothing is ever lost (simulator and cluster tests).
#pragma once

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace kvsim::sim::testing {

// The share of prompt tokens an eviction-free prefix cache serves, computed from hash_ids
// alone: block i of a request (512 tokens) is a hit when some earlier request had the same
// ids for blocks 0..i as full prompt blocks; a hit stops one token short of the prompt.
// With `chunk_blocks` C > 1 the cache keeps chunks of C blocks: a request hits the chunks
// [0, k) when for each an earlier request had the same ids for all of its blocks as full
// prompt blocks, and a hit is whole chunks. Only the first `max_requests` rows are read.
inline double scan_hit_rate(const std::filesystem::path& trace, uint64_t chunk_blocks = 1,
                            uint64_t max_requests = ~uint64_t{0}) {
  std::map<std::pair<uint64_t, uint64_t>, uint64_t> trie;  // (parent node, id) -> node
  std::vector<bool> full;                                  // node was a full prompt block
  uint64_t hit_tokens = 0, prompt_tokens = 0, rows = 0;
  std::ifstream in(trace);
  for (std::string line; rows < max_requests && std::getline(in, line); ++rows) {
    const auto row = nlohmann::json::parse(line);
    const uint64_t prompt = row["input_length"];
    const std::vector<uint64_t> ids = row["hash_ids"];
    const uint64_t max_hit = (prompt - 1) / 512;
    uint64_t node = 0, hits = 0;
    bool hitting = true;
    for (uint64_t i = 0; i < ids.size(); ++i) {
      auto [it, added] = trie.emplace(std::make_pair(node, ids[i]), full.size() + 1);
      if (added) full.push_back(false);
      node = it->second;
      if ((i + 1) % chunk_blocks == 0) {  // the end of a chunk: hit it whole, or stop
        if (hitting && full[node - 1] && i + 1 <= max_hit) {
          hits += chunk_blocks;
        } else {
          hitting = false;
        }
      }
      if ((i + 1) * 512 <= prompt) full[node - 1] = true;
    }
    hit_tokens += hits * 512;
    prompt_tokens += prompt;
  }
  return static_cast<double>(hit_tokens) / static_cast<double>(prompt_tokens);
}

}  // namespace kvsim::sim::testing
