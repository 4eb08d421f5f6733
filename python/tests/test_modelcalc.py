"""The Python package against hand-derived figures and against the CLI.

Run by ctest (tests/tests.cmake) as: python3 test_modelcalc.py MODELCALC_BINARY, with PYTHONPATH at the
build's python/ folder.
"""
import json
import os
import subprocess
import sys
import unittest

import modelcalc

BINARY = os.environ.get("MODELCALC_BINARY", "")

# Drill 1's model (seeds/001): L = 48, d = 6144, h = 48, 8 KV heads, SwiGLU d_ff = 16384, vocab 64,000.
DRILL1 = dict(L=48, d=6144, heads=48, kv_heads=8, ffn=16384, glu=True, vocab=64000, seq=8192, gpu="mi300x")


def cli_json(args):
    """What the executable prints for args."""
    done = subprocess.run([BINARY] + args, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


class HandDerived(unittest.TestCase):
    def test_drill1_from_keywords(self):
        r = modelcalc.size(**DRILL1)
        p = r["params"]
        self.assertEqual(p["q"], 6144 * 6144)                     # 37,748,736
        self.assertEqual(p["kv"], 2 * 6144 * 1024)                # d_kv = 8 x 128 = 1024: 12,582,912
        self.assertEqual(p["ffn"], 3 * 6144 * 16384)              # 301,989,888
        self.assertEqual(p["per_layer"], 390_070_272)             # q + kv + o + ffn
        self.assertEqual(p["embeddings"], 2 * 64000 * 6144)       # untied: 786,432,000
        self.assertEqual(p["total"], 48 * 390_070_272 + 786_432_000)  # 19,509,805,056
        self.assertEqual(r["kv"]["bytes_per_token"], 2 * 48 * 1024 * 2)  # K and V, L, d_kv, fp16: 196,608
        self.assertEqual(r["weights"]["bytes"], 2 * 19_509_805_056)

    def test_false_and_none_leave_a_flag_out(self):
        # glu=False is no --glu: the FFN has two matrices, 2 x 6144 x 16384 = 201,326,592.
        r = modelcalc.size(**dict(DRILL1, glu=False, head_dim=None))
        self.assertEqual(r["params"]["ffn"], 2 * 6144 * 16384)

    def test_gpus_catalog_row(self):
        # The MI300X's 5.3 TB/s (AMD's data sheet, data/gpus.tsv).
        rows = {g["key"]: g for g in modelcalc.gpus()}
        self.assertEqual(rows["mi300x"]["bandwidth_bytes_per_s"], 5.3e12)


class Prediction(unittest.TestCase):
    """The prediction beside the ceiling, through the engine keywords (engine=, gpu_memory_utilization=, ...)."""

    def test_engine_keywords_and_the_predicted_siblings(self):
        r = modelcalc.kv_budget(model="llama-3.1-8b", gpu="h100", engine="vllm", gpu_memory_utilization=0.8)
        e = r["engine"]
        self.assertEqual(e["profile"], "vllm")
        self.assertEqual(e["memory_fraction"], 0.8)
        self.assertEqual(e["kv_cache_tokens"], e["gpu_blocks"] * e["block_size"])
        s = modelcalc.size(model="llama-3.1-8b", gpu="h100", batch=32, engine="sglang")
        self.assertGreaterEqual(s["decode_step"]["predicted"]["seconds"], s["decode_step"]["seconds"])
        self.assertIn("TensorRT-LLM's", s["engine"]["time_parameters"])  # SGLang inherits them, and says so

    def test_bad_engine_input_names_the_flag(self):
        with self.assertRaises(modelcalc.InputError) as ctx:
            modelcalc.size(model="llama-3.1-8b", gpu="h100", engine="vllm", gpu_memory_utilization=0)
        self.assertTrue(str(ctx.exception).startswith("--gpu-memory-utilization:"), str(ctx.exception))

    def test_calibrate_rows_and_summary(self):
        c = modelcalc.calibrate()
        self.assertEqual(len(c["rows"]), 395)
        self.assertEqual(c["summary"]["over_ceiling"], 0)
        self.assertEqual(c, cli_json(["calibrate", "--json"]))


class SameAsTheCli(unittest.TestCase):
    def test_size_is_the_clis_json_key_for_key(self):
        args = ["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "32", "--json"]
        self.assertEqual(modelcalc.size(model="llama-3.1-8b", gpu="h100", batch=32), cli_json(args))

    def test_sweep_lists_and_ranges(self):
        rows = modelcalc.sweep(model="llama-3.1-8b", gpu=["h100", "mi300x"], seq=[1024, 2048], batch="1:4")
        self.assertEqual(len(rows), 2 * 2 * 4)  # GPUs x contexts x batches
        self.assertEqual([r["batch"] for r in rows[:4]], [1, 2, 3, 4])
        args = ["sweep", "--model", "llama-3.1-8b", "--gpu", "h100,mi300x", "--seq", "1024,2048", "--batch", "1:4",
                "--format", "json"]
        self.assertEqual(rows, cli_json(args))

    def test_text_is_the_clis_stdout(self):
        args = ["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--explain"]
        done = subprocess.run([BINARY] + args, capture_output=True, text=True, check=True)
        self.assertEqual(modelcalc.text("size", model="llama-3.1-8b", gpu="h100", explain=True), done.stdout)

    def test_run_passes_arguments_through(self):
        status, out, err = modelcalc.run(["train", "--params", "70B", "--tokens", "2T", "--json"])
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["flops"]["six_nd"], 6 * 70e9 * 2e12)  # 6 N D = 8.4e23


class TodaysFamilies(unittest.TestCase):
    """Every config of tests/fixtures/hf-configs-2026 through Python equals the executable's answer."""

    FIXTURES = os.path.join(os.path.dirname(__file__), "..", "..", "tests", "fixtures", "hf-configs-2026")

    def test_size_and_kv_budget_on_every_config(self):
        files = sorted(f for f in os.listdir(self.FIXTURES) if f.endswith(".json"))
        self.assertEqual(len(files), 24)
        for f in files:
            path = os.path.join(self.FIXTURES, f)
            with self.subTest(config=f):
                got = modelcalc.size(config=path, gpu="h100", gpus=2, seq=4096)
                self.assertEqual(got, cli_json(["size", "--config", path, "--gpu", "h100", "--gpus", "2",
                                                "--seq", "4096", "--json"]))
                kv = modelcalc.kv_budget(config=path, gpu="h100", gpus=2, context=4096)
                self.assertEqual(kv["memory_per_gpu"], got["memory_per_gpu"])

    def test_gpt_oss_is_served_as_its_mxfp4_checkpoint(self):
        # gpt-oss-120b's quantization_config: MXFP4 experts, 16-bit attention (no --dtype given).
        r = modelcalc.size(model="gpt-oss-120b", gpu="h100")
        self.assertEqual(r["deployment"]["weight_dtype"], "mxfp4")
        self.assertEqual(r["deployment"]["attention_dtype"], "bf16")
        # 2 x 201088 x 2880 x 2 B + attention 955,517,184 x 2 B + experts 114,701,598,720 / 2 + their
        # E8M0 scales / 32 + (norms 5840 + biases 8000 + router 368,768) x 36 x 2 B.
        self.assertEqual(r["memory_per_gpu"]["weights"], 65_190_340_224)

    def test_hybrid_state_is_reserved_per_sequence(self):
        # Qwen3-Next: 36 Gated DeltaNet layers x (32 x 128 x 128 + 3 x 8192) x 2 B on one GPU.
        r = modelcalc.size(model="qwen3-next-80b-a3b", gpu="h200")
        self.assertEqual(r["memory_per_gpu"]["state_per_sequence"], 36 * (524_288 + 24_576) * 2)


class BadInput(unittest.TestCase):
    def test_unknown_preset_names_the_flag(self):
        with self.assertRaises(modelcalc.InputError) as caught:
            modelcalc.size(model="no-such-model")
        message = str(caught.exception)
        self.assertIn("--model", message)
        self.assertNotIn("\n", message)
        self.assertFalse(message.startswith("modelcalc: error:"))

    def test_unknown_flag(self):
        with self.assertRaises(modelcalc.InputError) as caught:
            modelcalc.size(model="llama-3.1-8b", no_such_flag=1)
        self.assertIn("--no-such-flag", str(caught.exception))

    def test_output_format_is_the_functions_choice(self):
        with self.assertRaises(TypeError):
            modelcalc.size(model="llama-3.1-8b", json=True)
        with self.assertRaises(TypeError):
            modelcalc.sweep(model="llama-3.1-8b", format="csv")


class Package(unittest.TestCase):
    def test_every_command_is_a_function_with_its_flags_as_help(self):
        names = [name for name, _ in modelcalc.commands()]
        self.assertIn("kv-budget", names)
        self.assertIn("serve", names)
        self.assertFalse(hasattr(modelcalc, "serve"))  # runs until killed: no function
        with self.assertRaises(modelcalc.InputError):
            modelcalc.text("serve")
        for name in names:
            if name == "serve":
                continue
            fn = getattr(modelcalc, name.replace("-", "_"))
            self.assertIn("--help", fn.__doc__)
        self.assertIn("--model", modelcalc.size.__doc__)

    def test_version_is_the_clis(self):
        self.assertEqual(modelcalc.__version__, subprocess.run([BINARY, "--version"], capture_output=True,
                                                               text=True, check=True).stdout.split()[-1])


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = sys.argv.pop(1)
    if not BINARY:
        sys.exit("usage: test_modelcalc.py MODELCALC_BINARY (or set MODELCALC_BINARY)")
    unittest.main(verbosity=2)
