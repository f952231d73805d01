"""Tests of validate_serving_b.py's reading of runs.csv rows (run from this folder:
/usr/bin/python3 -m pytest docs/fidelity/serving/test_validate_serving_b.py)."""
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_serving_b as b  # noqa: E402


def run_row(**fields):
    row = {"run_id": "B999", "engine": "vllm", "engine_version": "0.11.0",
           "model": "Qwen/Qwen3-14B", "gpu": "H100-SXM-80GB", "tp": "1 (not set)", "ep": "", "dp": "",
           "server_command": "vllm serve Qwen/Qwen3-14B", "section": "Other Benchmark Cases",
           "client_command": "vllm bench serve --dataset-name random --random-input-len 4000 "
                             "--random-output-len 200 --num-prompts 500 --seed 42",
           "dataset": "random", "input_len": "4000", "output_len": "200", "request_rate": "inf",
           "max_concurrency": "", "num_requests": "500"}
    row.update(fields)
    return row


def totals(count, total_in, total_out):
    return {("whole run", "requests_succeeded", "count"): count,
            ("whole run", "total_input_tokens", "value"): total_in,
            ("whole run", "total_generated_tokens", "value"): total_out}


class ServerFlags(unittest.TestCase):
    def test_a_command_line_and_gpustacks_backend_parameters(self):
        self.assertEqual(b.server_flags(run_row(server_command="vllm serve m -tp 8 --async-scheduling")),
                         [("-tp", "8"), ("--async-scheduling", None)])
        self.assertEqual(b.server_flags(run_row(
            server_command="[Optimized Backend Parameters: --max-model-len=32768 --enable-prefix-caching]")),
            [("--max-model-len", "32768"), ("--enable-prefix-caching", None)])

    def test_tensor_parallel_reads_every_spelling(self):
        for text, tp in (("8", 8), ("1 (not set)", 1), ("not set (engine default 1)", 1), ("8]", 8)):
            self.assertEqual(b.tensor_parallel(run_row(tp=text)), tp)


class SkipReason(unittest.TestCase):
    def test_a_plain_random_run_is_taken(self):
        self.assertEqual(b.skip_reason(run_row()), "")

    def test_what_kvsim_cannot_express_is_skipped_with_its_reason(self):
        cases = {"TensorRT": run_row(engine="trtllm"),
                 "Ascend": run_row(gpu="Ascend-910B"),
                 "preset": run_row(model="zai-org/GLM-4.5-Air"),
                 "speculative": run_row(server_command="vllm serve m --speculative-config x"),
                 "data parallelism": run_row(engine="sglang",
                                             server_command="python3 -m sglang.launch_server --enable-dp-attention"),
                 "--async-scheduling": run_row(server_command="vllm serve m --async-scheduling")}
        for needle, row in cases.items():
            self.assertIn(needle, b.skip_reason(row))

    def test_a_sharegpt_run_is_taken_for_the_mean_lengths_table(self):
        self.assertEqual(b.skip_reason(run_row(dataset="sharegpt")), "")


class Lengths(unittest.TestCase):
    def test_range_ratio_zero_is_fixed_and_another_is_vllms_uniform_range(self):
        self.assertEqual(b.length_yaml(4000, 0), "4000")
        self.assertEqual(b.length_yaml(1000, 0.5), "{dist: uniform, min: 500, max: 1500}")

    def test_exact_only_when_every_request_generated_what_was_asked(self):
        self.assertEqual(b.workload(run_row(), totals(500, 1998000, 100000)), (3996, 200, "exact"))
        self.assertEqual(b.workload(run_row(), totals(500, 1998000, 99000)), (3996, 198, "mean"))
        self.assertEqual(b.workload(run_row(), totals(500, 1500000, 100000))[2], "mean")
        self.assertEqual(b.workload(run_row(dataset="sharegpt"), totals(1000, 219171, 200752)),
                         (219, 201, "sharegpt"))


class Scenario(unittest.TestCase):
    def test_burst_closed_loop_and_vllm_flags(self):
        text = b.scenario_yaml(run_row(max_concurrency="4", tp="2",
                                       server_command="vllm serve m --max-num-batched-tokens 4096"),
                               3996, 200, "exact")
        for line in ("model: qwen3-14b", "device: h100-sxm", "num_devices: 2", "weight_dtype: bf16",
                     "engine: {name: vllm, version: 0.11.0}",
                     "scheduler: {max_num_batched_tokens: 4096}", "  max_concurrency: 4",
                     "    arrival: burst", "    num_requests: 500", "    prompt_tokens: 3996",
                     "    output_tokens: 200"):
            self.assertIn(line, text.splitlines())

    def test_an_fp8_checkpoint_of_a_bf16_preset_has_fp8_weights(self):
        text = b.scenario_yaml(run_row(model="Qwen/Qwen3-14B-FP8"), 3996, 200, "exact")
        self.assertIn("weight_dtype: fp8", text.splitlines())


if __name__ == "__main__":
    unittest.main()
