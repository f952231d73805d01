#include "cli/help_examples.h"

#include <string>
#include <string_view>
#include <vector>

namespace kvsim::cli {
namespace {

struct Examples {
  std::string_view path;  // subcommand names from the top, space-separated
  std::vector<std::string_view> lines;
};

const std::vector<Examples>& examples() {
  static const std::vector<Examples> table = {
      {"capacity",
       {"kvsim capacity --model llama3-8b --device h100-sxm",
        "kvsim capacity --model llama3-70b --device ascend-910b3,h100-sxm --tp 4 --kv-dtype int8"}},
      {"layout", {"kvsim layout --model llama3-8b --device ascend-310p3 --locate 5,1,17"}},
      {"model", {"kvsim model import presets/hf/meta-llama__Llama-3.1-8B.json"}},
      {"model import",
       {"kvsim model import presets/hf/meta-llama__Llama-3.1-8B.json --name llama-3.1-8b"}},
      {"presets", {"kvsim presets", "kvsim presets show scenario default"}},
      {"presets show", {"kvsim presets show llama3-8b", "kvsim presets show scenario default"}},
      {"simulate",
       {"kvsim simulate default",
        "kvsim simulate default --set workload.synthetic.rate=8 --set cache.dtype=fp8 --json"}},
      {"blocks", {"kvsim blocks --demo", "kvsim blocks --demo --eviction lfu --json"}},
      {"sweep",
       {"kvsim sweep devices-vs-dtype --dry-run",
        "kvsim sweep slo-capacity --out /tmp/kvsim-slo-capacity"}},
      {"sweep merge",
       {"kvsim sweep slo-capacity --shard 0/2 --out /tmp/kvsim-shard-0",
        "kvsim sweep slo-capacity --shard 1/2 --out /tmp/kvsim-shard-1",
        "kvsim sweep merge /tmp/kvsim-shard-0 /tmp/kvsim-shard-1 --out /tmp/kvsim-merged"}},
      {"kernels", {"kvsim kernels validate --cases 20"}},
      {"kernels validate", {"kvsim kernels validate --cases 20 --json"}},
      {"generate", {"kvsim generate --prompt \"In the beginning\" --steps 32"}},
      {"ppl", {"kvsim ppl --policy full --policy window:64 --policy int8 --max-tokens 512"}},
      {"cost",
       {"kvsim cost --model llama3-8b --device h100-sxm --batch decode:32x2048",
        "kvsim cost --model llama3-8b --device h100-sxm --batch prefill:1x4096,decode:16x1024"}},
      {"calibrate",
       {"kvsim calibrate --from-log tests/data/startup_logs/v0_0.6.4_llama31-8b_rtx3090_20k.log "
        "--model llama3-8b --device rtx-3090"}},
  };
  return table;
}

void add_below(CLI::App* app, const std::string& path) {
  for (CLI::App* sub : app->get_subcommands({})) {
    const std::string sub_path = path.empty() ? sub->get_name() : path + " " + sub->get_name();
    for (const Examples& entry : examples()) {
      if (entry.path != sub_path) continue;
      std::string footer = "Examples:\n";
      for (std::string_view line : entry.lines) footer += "  " + std::string(line) + "\n";
      sub->footer(footer);
    }
    add_below(sub, sub_path);
  }
}

}  // namespace

void add_help_examples(CLI::App* app) { add_below(app, ""); }

}  // namespace kvsim::cli
