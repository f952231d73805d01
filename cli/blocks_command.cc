// kvsim blocks --demo [--json] [--eviction NAME]: the paged KV cache step by step.
//
// Runs core/cache/block_demo.h's scripted scenario (17 blocks of 4 tokens, block 0 the null block)
// and prints every step.
// The JSON form carries every step for the GUI to animate. Schema:
//   {
//     "num_blocks": 17, "block_size": 4, "eviction": "lru",
//     "steps": [ {
//       "index": 1,                                  1-based step number
//       "action": "...", "note": "...",              what the scheduler did, and why it matters
//       "events": [ {                                what the cache did, in order
//         "kind": "allocate" | "hit" | "cache" | "evict" | "free" | "copy" | "trim" |
//                 "swap_out" | "swap_in",
//         "request": 2 | null,                       null for "evict"
//         "block": 4,                                the block acted on ("copy": the source)
//         "to_block": 6 | null,                      "copy": the new block
//         "index": 2 | null,                         position in the request's block table
//         "hash": "0x..." | null                     "hit", "cache", "evict": 16 hex digits
//       } ],
//       "requests": [ {                              live requests by id, after the step
//         "id": 1, "num_tokens": 14,
//         "block_table": [1, 2, 3, 4]                null where retention dropped a block,
//       } ],                                         "swapped" while on the host tier
//       "blocks": [ {                                every block by id, after the step
//         "id": 1, "ref_count": 2,
//         "hash": "0x..." | null,                    set while in the prefix cache
//         "state": "used" | "cached_free" | "free" | "null"   block 0 is "null"
//       } ],
//       "free_queue": [6, 7, ...],                   free blocks, next to be reused first
//       "stats": { "used_blocks", "cached_free_blocks", "empty_free_blocks",
//                  "prefix_hit_tokens", "prefix_query_tokens", "evictions",
//                  "cow_copies", "preemptions" }     all integers
//     } ]
//   }
#include <fmt/format.h>

#include <cinttypes>
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>

#include "cli/command.h"
#include "core/cache/block_demo.h"

namespace kvsim::cli {
namespace {

struct BlocksOptions {
  bool demo = false;
  bool json = false;
  std::string eviction = "lru";
};

nlohmann::json entry_json(BlockId entry) {
  if (entry == kNullBlock) return nullptr;
  if (entry == kSwappedBlock) return "swapped";
  return entry;
}

nlohmann::json event_json(const CacheEvent& event) {
  const bool has_hash = event.kind == CacheEventKind::kHit ||
                        event.kind == CacheEventKind::kCache ||
                        event.kind == CacheEventKind::kEvict;
  const bool evict = event.kind == CacheEventKind::kEvict;
  nlohmann::json out;
  out["kind"] = cache_event_name(event.kind);
  out["request"] = evict ? nlohmann::json(nullptr) : nlohmann::json(event.request);
  out["block"] = event.block;
  out["to_block"] = event.kind == CacheEventKind::kCopy ? nlohmann::json(event.other_block)
                                                        : nlohmann::json(nullptr);
  out["index"] = evict ? nlohmann::json(nullptr) : nlohmann::json(event.index);
  out["hash"] = has_hash ? nlohmann::json(block_hash_text(event.hash)) : nlohmann::json(nullptr);
  return out;
}

nlohmann::json step_json(const DemoStep& step, size_t index) {
  nlohmann::json out;
  out["index"] = index;
  out["action"] = step.action;
  out["note"] = step.note;
  out["events"] = nlohmann::json::array();
  for (const CacheEvent& event : step.events) out["events"].push_back(event_json(event));
  out["requests"] = nlohmann::json::array();
  for (const DemoRequest& request : step.requests) {
    nlohmann::json table = nlohmann::json::array();
    for (BlockId entry : request.block_table) table.push_back(entry_json(entry));
    out["requests"].push_back(
        {{"id", request.id}, {"num_tokens", request.num_tokens}, {"block_table", table}});
  }
  out["blocks"] = nlohmann::json::array();
  for (const DemoBlock& block : step.blocks) {
    out["blocks"].push_back({{"id", block.id},
                             {"ref_count", block.ref_count},
                             {"hash", block.hash ? nlohmann::json(block_hash_text(*block.hash))
                                                 : nlohmann::json(nullptr)},
                             {"state", demo_block_state_name(demo_block_state(block))}});
  }
  out["free_queue"] = step.free_queue;
  const KvCacheStats& s = step.stats;
  out["stats"] = {{"used_blocks", s.num_used_blocks},
                  {"cached_free_blocks", s.num_cached_free_blocks},
                  {"empty_free_blocks", s.num_empty_free_blocks},
                  {"prefix_hit_tokens", s.num_prefix_hit_tokens},
                  {"prefix_query_tokens", s.num_prefix_query_tokens},
                  {"evictions", s.num_evictions},
                  {"cow_copies", s.num_cow_copies},
                  {"preemptions", s.num_preemptions}};
  return out;
}

void print_block_grid(const DemoStep& step) {
  std::printf("  block   ");
  for (const DemoBlock& b : step.blocks) std::printf("%3u", b.id);
  // The null block (never handed out) shows as "-".
  const auto null = [](const DemoBlock& b) { return demo_block_state(b) == DemoBlockState::kNull; };
  std::printf("\n  ref     ");
  for (const DemoBlock& b : step.blocks) {
    std::printf("%3s", null(b) ? "-" : std::to_string(b.ref_count).c_str());
  }
  std::printf("\n  cached  ");
  for (const DemoBlock& b : step.blocks) std::printf("%3s", null(b) ? "-" : b.hash ? "*" : ".");
  std::printf("\n");
}

void print_step(const DemoStep& step, size_t index) {
  std::printf("Step %zu: %s\n  %s\n", index, step.action.c_str(), step.note.c_str());
  for (const CacheEvent& event : step.events)
    std::printf("    - %s\n", cache_event_text(event).c_str());
  for (const DemoRequest& request : step.requests) {
    std::printf("  request %" PRIu64 " (%" PRIu64 " tokens): [", request.id, request.num_tokens);
    for (size_t i = 0; i < request.block_table.size(); ++i) {
      const BlockId entry = request.block_table[i];
      std::printf(i == 0 ? "%s" : " %s", holds_block(entry)    ? std::to_string(entry).c_str()
                                         : entry == kNullBlock ? "-"
                                                               : "host");
    }
    std::printf("]\n");
  }
  print_block_grid(step);
  std::printf("  free queue (next reused first):");
  for (BlockId block : step.free_queue) std::printf(" %u", block);
  const KvCacheStats& s = step.stats;
  std::printf("\n  used %u, cached free %u, empty free %u; prefix-hit tokens %" PRIu64
              ", evictions %" PRIu64 ", copies %" PRIu64 ", preemptions %" PRIu64 "\n\n",
              s.num_used_blocks, s.num_cached_free_blocks, s.num_empty_free_blocks,
              s.num_prefix_hit_tokens, s.num_evictions, s.num_cow_copies, s.num_preemptions);
}

int run_blocks(const BlocksOptions& options) {
  if (!options.demo) {
    return report_error(Status::invalid_argument("blocks: pass --demo (the scripted scenario)"));
  }
  const auto eviction = parse_eviction(options.eviction);
  if (!eviction.is_ok()) return report_error(eviction.status().with_context("--eviction"));
  auto demo = run_block_demo(*eviction);
  if (!demo.is_ok()) return report_error(demo.status());
  if (options.json) {
    nlohmann::json out;
    out["num_blocks"] = demo->num_blocks;
    out["block_size"] = demo->block_size;
    out["eviction"] = eviction_name(demo->eviction);
    out["steps"] = nlohmann::json::array();
    for (size_t i = 0; i < demo->steps.size(); ++i)
      out["steps"].push_back(step_json(demo->steps[i], i + 1));
    std::printf("%s\n", out.dump(2).c_str());
    return kExitOk;
  }
  std::printf("Paged KV cache demo: %u blocks of %u tokens, eviction policy %s\n\n",
              demo->num_blocks, demo->block_size,
              std::string(eviction_name(demo->eviction)).c_str());
  for (size_t i = 0; i < demo->steps.size(); ++i) print_step(demo->steps[i], i + 1);
  return kExitOk;
}

}  // namespace

void register_blocks_command(CLI::App& app, CommandFn* chosen) {
  auto options = std::make_shared<BlocksOptions>();
  CLI::App* command = app.add_subcommand(
      "blocks", "the paged KV cache step by step: block tables, ref counts, free queue");
  command->add_flag("--demo", options->demo,
                    "run the scripted scenario (17 blocks: prefix sharing, fork, copy-on-write, "
                    "preemption, eviction)");
  command->add_option("--eviction", options->eviction,
                      fmt::format("eviction policy: {}", fmt::join(eviction_names(), ", ")));
  command->add_flag("--json", options->json, "print every step as JSON");
  command->callback([options, chosen] { *chosen = [options] { return run_blocks(*options); }; });
}

}  // namespace kvsim::cli
