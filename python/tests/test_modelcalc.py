"""The Python package against hand-derived figures and against the CLI.

Run by ctest (tests/tests.cmake) as: python3 test_modelcalc.py MODELCALC_BINARY, with PYTHONPATH at the
build's python/ folder. unittest, so plain python3 runs it (pytest would collect it too; it is not installed here).
"""
import ast
import inspect
import json
import os
import re
import shutil
import subprocess
import sys
import pathlib
import tempfile
import unittest

import modelcalc
from modelcalc import lab

try:
    import numpy
except ImportError:
    numpy = None
try:
    import pandas
except ImportError:
    pandas = None

BINARY = os.environ.get("MODELCALC_BINARY") or shutil.which("modelcalc") or ""  # pytest: set MODELCALC_BINARY
SOURCE = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EVIDENCE_A = os.path.join(SOURCE, "tests", "evidence", "case_a.json")
LLAMA_CONFIG = os.path.join(SOURCE, "tests", "fixtures", "hf-configs", "Llama-3.2-1B.config.json")

# Drill 1's model (seeds/001): L = 48, d = 6144, h = 48, 8 KV heads, SwiGLU d_ff = 16384, vocab 64,000.
DRILL1 = dict(layers=48, hidden=6144, heads=48, kv_heads=8, ffn=16384, glu=True, vocab=64000)
DRILL1_FLAGS = ["-L", "48", "-d", "6144", "--heads", "48", "--kv-heads", "8", "--ffn", "16384", "--glu",
                "--vocab", "64000"]


def cli_json(args):
    """What the executable prints for args (exit status 0, or 1 for plan's closest misses)."""
    done = subprocess.run([BINARY] + args, capture_output=True, text=True)
    if done.returncode not in (0, 1) or not done.stdout:
        raise AssertionError(f"{args}: status {done.returncode}: {done.stderr}")
    return without_commands(json.loads(done.stdout))


def without_commands(j):
    """The CLI's JSON without the "command" its proposals carry (the command line as typed, changed): Python,
    having no command line, answers without it; a proposal's "change" holds its keywords."""
    if isinstance(j, dict):
        return {k: without_commands(v) for k, v in j.items() if k != "command"}
    if isinstance(j, list):
        return [without_commands(v) for v in j]
    return j


def cli_error(args):
    done = subprocess.run([BINARY] + args, capture_output=True, text=True)
    assert done.returncode == 2, (args, done.returncode)
    return done.stderr.strip().removeprefix("modelcalc: error: ")


def without_wall_time(doc):
    """A search's document without its own wall time (plan's "seconds", train-plan's "Searched ... in 5.2 ms.")."""
    doc.pop("seconds", None)
    doc["ignored"] = [re.sub(r" in [0-9.,]+ (ms|s|µs)\.$", " in (time).", line) for line in doc.get("ignored", [])]
    return doc


class HandDerived(unittest.TestCase):
    def test_drill1_from_a_hand_typed_model(self):
        m = modelcalc.Model(**DRILL1)
        r = modelcalc.size(m, "mi300x", context=8192)
        p = r.params
        self.assertEqual(p.q, 6144 * 6144)                       # 37,748,736
        self.assertEqual(p.kv, 2 * 6144 * 1024)                  # d_kv = 8 x 128 = 1024: 12,582,912
        self.assertEqual(p.ffn, 3 * 6144 * 16384)                # 301,989,888
        self.assertEqual(p.per_layer, 390_070_272)               # q + kv + o + ffn
        self.assertEqual(p.embeddings, 2 * 64000 * 6144)         # untied: 786,432,000
        total = 48 * 390_070_272 + 786_432_000                   # 19,509,805,056
        self.assertEqual(r.params_total, total)
        self.assertEqual(r["params"]["total"], total)            # item access, as the dicts were read before
        self.assertEqual(r.kv_bytes_per_token, 2 * 48 * 1024 * 2)  # K and V, L, d_kv, fp16: 196,608
        self.assertEqual(r.kv_bytes_per_sequence, 196_608 * 8192)
        self.assertEqual(r.weight_bytes, 2 * total)
        # MI300X, 5.3 TB/s (data/gpus.tsv): weights-only ceiling bw / W = 5.3e12 / 39,019,610,112 = 135.83 tokens/s.
        self.assertAlmostEqual(r.teaching_tokens_per_s_weights_only, 5.3e12 / (2 * total), places=9)

    def test_numbers_are_numbers(self):
        r = modelcalc.size("llama-3.1-8b", "h100", context=4096, batch=8)
        self.assertIsInstance(r.weight_bytes, int)
        self.assertIsInstance(r.kv_bytes_per_sequence, int)
        self.assertIsInstance(r.tokens_per_s_aggregate, float)
        self.assertIsInstance(r.decode_step.seconds, float)
        self.assertIsInstance(r.fits, bool)
        self.assertEqual(r.context, 4096)
        self.assertEqual(r.batch, 8)
        # Llama-3.1-8B: 32 layers, 8 KV heads of 128: 2 x 32 x 1024 x 2 B = 131,072 B a token, x 4096 tokens.
        self.assertEqual(r.kv_bytes_per_sequence, 131_072 * 4096)

    def test_training_memory_of_a_model_counts_activations(self):
        m = modelcalc.Model("llama-3.1-8b")
        n = m.params["total"]
        self.assertEqual(n, 8_030_261_248)  # transformers' count for Llama-3.1-8B
        # Korthikanti et al., no parallelism, s = 2048, b = 1, h = 4096, a = 32:
        # s b h (34 + 5 a s / h) = 8,388,608 x (34 + 80) = 956,301,312 B a layer, x 32 layers.
        act = 2048 * 4096 * (34 + 5 * 32 * 2048 / 4096) * 32
        self.assertEqual(lab.training_memory_bytes(m), 16 * n + int(act))
        # Full recomputation keeps the layer input only: 2 s b h = 16,777,216 B a layer.
        self.assertEqual(lab.training_memory_bytes(m, activation_checkpointing=True), 16 * n + 2 * 2048 * 4096 * 32)

    def test_gpu_numbers_and_strings(self):
        self.assertEqual(modelcalc.Gpu("mi300x").bandwidth_bytes_per_s, 5.3e12)  # AMD's data sheet (data/gpus.tsv)
        self.assertEqual(modelcalc.Gpu("h100", capacity=94e9).capacity_bytes, 94e9)
        self.assertEqual(modelcalc.Gpu("h100", capacity="94GB").capacity_bytes, 94e9)
        custom = modelcalc.Gpu(bandwidth="3.35TB/s", capacity=80e9, peak=989.4e12)
        self.assertEqual((custom.bandwidth_bytes_per_s, custom.peak_bf16_flops), (3.35e12, 989.4e12))
        # The ridge: 989.4e12 / 3.35e12 = 295.34 FLOP/byte.
        self.assertAlmostEqual(custom.ridge(), 989.4e12 / 3.35e12)

    def test_deployment_evaluate_is_the_engines_step(self):
        d = modelcalc.deployment("llama-3.1-8b", "h100", context=4096, batch=1)
        b16 = d.evaluate(batch=16)
        again = modelcalc.deployment("llama-3.1-8b", "h100", context=4096, batch=16)
        self.assertEqual(b16.decode.seconds, again.decode.seconds)
        self.assertEqual(b16.decode.batch, 16)
        # One more sequence costs only its KV read: the step at 16 is longer than at 1, by less than 16x.
        self.assertGreater(b16.decode.seconds, d.decode.seconds)
        self.assertLess(b16.decode.seconds, 16 * d.decode.seconds)
        self.assertAlmostEqual(b16.decode.tokens_per_s_aggregate, 16 / b16.decode.seconds)


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
        # SGLang's own published rows fitted its parameters (data/engine_profiles.tsv), and it says so
        self.assertIn("fitted on published SGLang", s["engine"]["time_parameters"])

    def test_bad_engine_input_names_the_keyword(self):
        with self.assertRaises(modelcalc.InputError) as ctx:
            modelcalc.size(model="llama-3.1-8b", gpu="h100", engine="vllm", gpu_memory_utilization=0)
        self.assertTrue(str(ctx.exception).startswith("gpu_memory_utilization:"), str(ctx.exception))
        with self.assertRaises(modelcalc.InputError) as ctx:
            modelcalc.size("llama-3.1-8b", "h100", engine="vllm", kv_cache_free_gpu_mem_fraction=0.9)
        self.assertTrue(str(ctx.exception).startswith("kv_cache_free_gpu_mem_fraction:"), str(ctx.exception))
        self.assertNotIn("--", str(ctx.exception))

    def test_the_engine_keywords_are_the_clis_flags(self):
        ours = modelcalc.size("llama-3.1-8b", "h100", context=8192, batch=16, prompt=2048, engine="vllm",
                              gpu_memory_utilization=0.85, max_num_seqs=128, block_size=32, reserve=0.05)
        theirs = cli_json(["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "8192", "--batch", "16",
                           "--prompt", "2048", "--engine", "vllm", "--gpu-memory-utilization", "0.85",
                           "--max-num-seqs", "128", "--block-size", "32", "--reserve", "0.05", "--json"])
        self.assertEqual(ours.to_dict(), theirs)
        self.assertIn("serving", theirs)  # a prompt shorter than the context: the steady state
        d = modelcalc.deployment("llama-3.1-8b", "h100", context=8192, batch=16, prompt=2048, engine="vllm",
                                 gpu_memory_utilization=0.85, max_num_seqs=128, block_size=32, reserve=0.05)
        for key in ("deployment", "memory_per_gpu", "decode_step", "prefill", "engine"):
            self.assertEqual(d.to_dict()[key], theirs[key], key)
        self.assertEqual(ours.predicted_tokens_per_s_aggregate, theirs["decode_step"]["predicted"]["tokens_per_s_aggregate"])

    def test_kv_budget_and_sweep_with_an_engine(self):
        self.assertEqual(modelcalc.kv_budget("llama-3.1-8b", "h100", engine="sglang", block_size=8).to_dict(),
                         cli_json(["kv-budget", "--model", "llama-3.1-8b", "--gpu", "h100", "--engine", "sglang",
                                   "--block-size", "8", "--json"]))
        names = [name for name, _, _, _ in modelcalc.sweep_columns()]
        self.assertEqual(
            modelcalc.sweep("llama-3.1-8b", "h100", batch="1:8", engine="vllm", fields="all").to_rows(),
            cli_json(["sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "1:8", "--engine", "vllm",
                      "--fields", ",".join(names), "--format", "json"]))

    @staticmethod
    def _profile_with(directory, param, value):
        """data/engine_profiles.tsv with every row of `param` (the pooled set and each family's) set to value."""
        lines = []
        with open(os.path.join(SOURCE, "data", "engine_profiles.tsv")) as f:
            for line in f.read().splitlines():
                cells = line.split("\t")
                if len(cells) == 3 and cells[1] == param:
                    cells[2] = value
                lines.append("\t".join(cells))
        path = os.path.join(directory, param + ".tsv")
        with open(path, "w") as f:
            f.write("\n".join(lines) + "\n")
        return path

    def test_a_profile_file_replaces_the_time_parameters(self):
        with tempfile.TemporaryDirectory() as d:
            # step_overhead_s is paid once per engine step: 0.5 s (the compiled-in ones are milliseconds) makes
            # one decode step at least 0.5 s, and leaves the ceiling alone.
            slow = self._profile_with(d, "step_overhead_s", "0.5")
            base = modelcalc.size("llama-3.1-8b", "h100", batch=8)
            mine = modelcalc.size("llama-3.1-8b", "h100", batch=8, profile=pathlib.Path(slow))
            self.assertLess(base["decode_step"]["predicted"]["seconds"], 0.5)
            self.assertGreaterEqual(mine["decode_step"]["predicted"]["seconds"], 0.5)
            self.assertEqual(mine["decode_step"]["seconds"], base["decode_step"]["seconds"])
            self.assertEqual(mine["engine"]["profile"], slow)  # the path as given, also when rendered later
            self.assertEqual(mine.to_dict(), cli_json(["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch",
                                                       "8", "--profile", slow, "--json"]))
            self.assertIn(slow, mine.text() + mine.explain())
            for fn, kw in ((modelcalc.kv_budget, {}), (modelcalc.diagnose, {"tokens_per_s": 20}),
                           (modelcalc.plan, {"isl": 512, "osl": 128, "gpu": "h100", "max_gpus": 8})):
                args = () if fn is modelcalc.plan or fn is modelcalc.diagnose else ("llama-3.1-8b", "h100")
                extra = {"model": "llama-3.1-8b"} if args == () else {}
                if fn is modelcalc.diagnose:
                    extra["gpu"] = "h100"
                out = fn(*args, profile=slow, **extra, **kw)
                # plan names no engine of its own without engine=: each configuration names its GPU's.
                engine = out["configs"][0]["engine"] if fn is modelcalc.plan else out["engine"]
                self.assertEqual(engine["profile"], slow, fn.__name__)
            # The deployment engine's prediction too: the same sections as size's, rendered later under the file.
            dep = modelcalc.deployment("llama-3.1-8b", "h100", batch=8, profile=slow)
            self.assertEqual(dep.to_dict()["engine"], mine.to_dict()["engine"])
            self.assertEqual(dep.to_dict()["decode_step"], mine.to_dict()["decode_step"])
            # A sweep runs under it; a call made from its on_chunk (no profile=) is back on the compiled-in one.
            inner = []
            cols = modelcalc.sweep("llama-3.1-8b", "h100", batch=8, fields="all", profile=slow,
                                   on_chunk=lambda c: inner.append(modelcalc.size("llama-3.1-8b", "h100", batch=8)))
            del cols
            self.assertEqual(inner[0].to_dict(), base.to_dict())
            rows = modelcalc.sweep("llama-3.1-8b", "h100", batch=8, fields="all", profile=slow).to_rows()
            names = [name for name, _, _, _ in modelcalc.sweep_columns()]
            self.assertEqual(rows, cli_json(["sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8",
                                             "--fields", ",".join(names), "--profile", slow, "--format", "json"]))
            # at least 0.5 s per decode step: at most 1 / 0.5 = 2 tokens/s per sequence
            self.assertLessEqual(rows[0]["predicted_tokens_per_s_per_sequence"], 2.0)
            self.assertEqual(rows[0]["predicted_tokens_per_s_per_sequence"], mine.predicted_tokens_per_s_per_sequence)
            # Columns that read no prediction: a profile there would change nothing, and is refused.
            with self.assertRaises(modelcalc.InputError) as ctx:
                modelcalc.sweep("llama-3.1-8b", "h100", batch=8, fields="batch,tokens_per_s_aggregate", profile=slow)
            self.assertTrue(str(ctx.exception).startswith("profile:"), str(ctx.exception))

    def test_a_bad_profile_file_is_an_input_error_naming_it(self):
        with tempfile.TemporaryDirectory() as d:
            for text in ("", "engine\tparameter\tvalue\nall\tstep_overhead_s\tfast\n"):
                path = os.path.join(d, "bad.tsv")
                with open(path, "w") as f:
                    f.write(text)
                with self.assertRaises(modelcalc.InputError) as ctx:
                    modelcalc.size("llama-3.1-8b", "h100", profile=path)
                self.assertTrue(str(ctx.exception).startswith("profile:"), str(ctx.exception))
            with self.assertRaises(modelcalc.InputError) as ctx:
                modelcalc.sweep("llama-3.1-8b", "h100", profile=os.path.join(d, "missing.tsv"))
            self.assertTrue(str(ctx.exception).startswith("profile:"), str(ctx.exception))

    def test_calibrate_rows_and_summary(self):
        c = modelcalc.calibrate()  # a command without a direct binding: the CLI bridge's function
        self.assertEqual(len(c["rows"]), 395 + 1420)  # serving-measured.tsv and serving-multiengine.tsv
        self.assertEqual(c["summary"]["over_ceiling"], 0)
        self.assertEqual(c, cli_json(["calibrate", "--json"]))


class SameAsTheCli(unittest.TestCase):
    """to_dict() is the CLI's --json document for the same call."""

    def test_size_defaults(self):
        self.assertEqual(modelcalc.size("llama-3.1-8b", "h100").to_dict(),
                         cli_json(["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--json"]))

    def test_size_with_options(self):
        r = modelcalc.size("mixtral-8x7b-v0.1", "h100", context="8K", batch=32, dtype="fp8", kv_dtype="fp8",
                           tp=2, train_tokens="1T", reserve="5%", prompt=1024)
        self.assertEqual(r.to_dict(), cli_json(
            ["size", "--model", "mixtral-8x7b-v0.1", "--gpu", "h100", "--seq", "8K", "--batch", "32", "--dtype", "fp8",
             "--kv-dtype", "fp8", "--tp", "2", "--train-tokens", "1T", "--reserve", "5%", "--prompt", "1024",
             "--json"]))

    def test_size_of_a_hand_typed_model_without_a_gpu(self):
        self.assertEqual(modelcalc.size(modelcalc.Model(**DRILL1), context=8192).to_dict(),
                         cli_json(["size"] + DRILL1_FLAGS + ["--seq", "8192", "--json"]))

    def test_size_of_a_config(self):
        self.assertEqual(modelcalc.size(modelcalc.Model(config=LLAMA_CONFIG), "l40s", batch=4).to_dict(),
                         cli_json(["size", "--config", LLAMA_CONFIG, "--gpu", "l40s", "--batch", "4", "--json"]))

    def test_a_checkpoint_needs_its_headers(self):
        # Model(checkpoint=) is the CLI's --checkpoint: a folder whose config.json has no safetensors beside it is
        # refused naming the keyword (a --config folder alike is read from its config.json alone).
        with tempfile.TemporaryDirectory() as d:
            shutil.copy(LLAMA_CONFIG, os.path.join(d, "config.json"))
            with self.assertRaisesRegex(modelcalc.InputError, "^checkpoint: "):
                modelcalc.Model(checkpoint=d)
            self.assertEqual(modelcalc.Model(config=d).params["total"],
                             modelcalc.Model(config=LLAMA_CONFIG).params["total"])

    def test_strings_are_the_clis(self):
        r = modelcalc.size("llama-3.1-8b", "h100", batch=8)
        theirs = cli_json(["size", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8", "--json", "--strings"])
        self.assertEqual(r.strings(), theirs["strings"])
        self.assertEqual(dict(r.to_dict(), strings=r.strings()), theirs)

    def test_text_and_explain_are_the_clis(self):
        r = modelcalc.size("llama-3.1-8b", "h100")
        for flag, got in (([], r.text()), (["--explain"], r.explain())):
            done = subprocess.run([BINARY, "size", "--model", "llama-3.1-8b", "--gpu", "h100"] + flag,
                                  capture_output=True, text=True, check=True)
            self.assertEqual(got, done.stdout)

    def test_kv_budget(self):
        self.assertEqual(modelcalc.kv_budget("llama-3.1-70b", "h100", gpus=4, kv_dtype="fp8").to_dict(),
                         cli_json(["kv-budget", "--model", "llama-3.1-70b", "--gpu", "h100", "--gpus", "4",
                                   "--kv-dtype", "fp8", "--json"]))
        self.assertEqual(modelcalc.kv_budget("llama-3.1-8b", budget=40e9).to_dict(),
                         cli_json(["kv-budget", "--model", "llama-3.1-8b", "--budget", "40GB", "--json"]))

    def test_plan_seconds_are_seconds(self):
        ours = modelcalc.plan("llama-3.1-8b", isl=2048, osl=512, qps=20, tpot=0.05, ttft=1, gpu=["h100", "mi300x"])
        theirs = cli_json(["plan", "--model", "llama-3.1-8b", "--isl", "2048", "--osl", "512", "--qps", "20",
                           "--tpot", "50ms", "--ttft", "1s", "--gpu", "h100,mi300x", "--json"])
        self.assertTrue(ours.feasible)
        self.assertEqual(without_wall_time(ours.to_dict()), without_wall_time(theirs))
        self.assertEqual(without_wall_time(modelcalc.plan("llama-3.1-8b", isl=2048, osl=512, qps=20, tpot="50ms",
                                                          ttft="1s", gpu="h100,mi300x").to_dict()),
                         without_wall_time(theirs))

    def test_size_and_kv_budget_with_the_layout_keywords(self):
        # DeepSeek-V3 on 8 H200 in the DP-attention layout with its MTP drafter and a prefix cache: the CLI's
        # document for the same flags, key for key.
        kw = dict(gpus=8, dp_attention=True, spec_method="mtp", spec_tokens=1, spec_acceptance=0.8, prefix_hit=0.5,
                  expert_imbalance=1.2, two_batch_overlap=True, batch=64)
        flags = ["--gpus", "8", "--dp-attention", "--spec-method", "mtp", "--spec-tokens", "1", "--spec-acceptance",
                 "0.8", "--prefix-hit", "0.5", "--expert-imbalance", "1.2", "--two-batch-overlap", "--batch", "64"]
        r = modelcalc.size("deepseek-v3", "h200", **kw)
        self.assertEqual(r.to_dict(), cli_json(["size", "--model", "deepseek-v3", "--gpu", "h200"] + flags + ["--json"]))
        self.assertEqual(r.layout, "dp-attention")
        self.assertAlmostEqual(r.accepted_tokens_per_step, 1.8, places=12)  # 1 + A for one draft token
        self.assertEqual(modelcalc.kv_budget("deepseek-v3", "h200", **kw).to_dict(),
                         cli_json(["kv-budget", "--model", "deepseek-v3", "--gpu", "h200"] + flags + ["--json"]))
        # A layout keyword that would change nothing is refused as the CLI refuses it, naming the keyword.
        with self.assertRaises(modelcalc.InputError) as e:
            modelcalc.size("deepseek-v3", "h200", gpus=8, expert_imbalance=2)
        self.assertIn("expert_imbalance", str(e.exception))

    def test_plan_disaggregated(self):
        ours = modelcalc.plan("deepseek-v3", isl=2000, osl=200, qps=5, gpu="h200", disaggregated=True,
                              spec_method="mtp", spec_tokens=1, spec_acceptance=0.8)
        theirs = cli_json(["plan", "--model", "deepseek-v3", "--isl", "2000", "--osl", "200", "--qps", "5",
                           "--gpu", "h200", "--disaggregated", "--spec-method", "mtp", "--spec-tokens", "1",
                           "--spec-acceptance", "0.8", "--json"])
        self.assertTrue(ours.feasible)
        self.assertEqual(without_wall_time(ours.to_dict()), without_wall_time(theirs))
        self.assertTrue(ours.to_dict()["disaggregated"])

    def test_plan_with_nothing_feasible_returns_the_misses(self):
        ours = modelcalc.plan("llama-3.1-70b", isl=2048, osl=512, qps=20, tpot=0.001, gpu="h100", max_gpus=8)
        self.assertFalse(ours.feasible)
        theirs = cli_json(["plan", "--model", "llama-3.1-70b", "--isl", "2048", "--osl", "512", "--qps", "20",
                           "--tpot", "1ms", "--gpu", "h100", "--max-gpus", "8", "--json"])
        self.assertEqual(without_wall_time(ours.to_dict()), without_wall_time(theirs))
        self.assertTrue(ours.misses)

    def test_train_plan(self):
        ours = modelcalc.train_plan("llama-3.1-8b", tokens=15e12, days=30, price={"h100": 2.49}, gpu=["h100"])
        self.assertTrue(ours.feasible)
        self.assertEqual(without_wall_time(ours.to_dict()), without_wall_time(cli_json(
            ["train-plan", "--model", "llama-3.1-8b", "--tokens", "15T", "--days", "30", "--gpu", "h100",
             "--price", "h100=2.49", "--json"])))

    def test_train_plan_with_options(self):
        ours = modelcalc.train_plan("llama-3.1-8b", tokens="1T", days=3, gpu="h100", micro_batch=[1, 2],
                                    max_batch_tokens="2M", optimizer="sgd", bf16_grads=True, flash=False,
                                    rank_by="time", top=3)
        theirs = cli_json(["train-plan", "--model", "llama-3.1-8b", "--tokens", "1T", "--days", "3", "--gpu", "h100",
                           "--micro-batch", "1,2", "--max-batch-tokens", "2M", "--optimizer", "sgd", "--bf16-grads",
                           "--no-flash", "--rank-by", "time", "--top", "3", "--json"])
        self.assertEqual(without_wall_time(ours.to_dict()), without_wall_time(theirs))

    def test_diagnose_from_a_file_and_from_a_dict(self):
        theirs = cli_json(["diagnose", EVIDENCE_A, "--json"])
        self.assertEqual(modelcalc.diagnose(EVIDENCE_A).to_dict(), theirs)
        with open(EVIDENCE_A) as f:
            from_dict = modelcalc.diagnose(json.load(f)).to_dict()
        self.assertEqual(from_dict, theirs)

    def test_diagnose_from_keywords(self):
        ours = modelcalc.diagnose(model="llama-3.1-8b", gpu="h100", batch=8, context=4096, tokens_per_s=40,
                                  bw_util=0.55, itl=0.025)
        theirs = cli_json(["diagnose", "--model", "llama-3.1-8b", "--gpu", "h100", "--batch", "8", "--seq", "4096",
                           "--tokens-per-s", "40", "--bw-util", "0.55", "--itl", "0.025", "--json"])
        self.assertEqual(ours.to_dict(), theirs)

    def test_sweep_rows_are_the_clis(self):
        cols = modelcalc.sweep(["llama-3.1-8b", "mixtral-8x7b-v0.1"], ["h100", "mi300x"], context=[1024, 32768],
                               batch="1:4", dtype=["fp16", "int4"], kv_dtype=["fp16", "fp8"])
        self.assertEqual(len(cols), 2 * 2 * 2 * 4 * 2 * 2)  # models x GPUs x contexts x batches x dtypes x KV dtypes
        self.assertEqual(cols.to_rows(), cli_json(
            ["sweep", "--model", "llama-3.1-8b,mixtral-8x7b-v0.1", "--gpu", "h100,mi300x", "--seq", "1024,32768",
             "--batch", "1:4", "--dtype", "fp16,int4", "--kv-dtype", "fp16,fp8", "--format", "json"]))

    def test_sweep_every_column(self):
        names = [name for name, _, _, _ in modelcalc.sweep_columns()]
        cols = modelcalc.sweep("llama-3.1-8b", "h100", context=[4096, 8192], batch=range(1, 70), fields="all")
        self.assertEqual(cols.keys(), names)
        self.assertEqual(cols.to_rows(), cli_json(
            ["sweep", "--model", "llama-3.1-8b", "--gpu", "h100", "--seq", "4096,8192", "--batch", "1:69",
             "--fields", ",".join(names), "--format", "json"]))

    def test_size_attributes_are_the_sweep_row(self):
        r = modelcalc.size("llama-3.1-8b", "h100", context=8192, batch=16)
        row = modelcalc.sweep("llama-3.1-8b", "h100", context=8192, batch=16, fields="all").to_rows()[0]
        for name, value in row.items():
            if name not in ("model", "gpu"):
                self.assertEqual(getattr(r, name), value, name)

    def test_deployment_is_sizes_engine(self):
        d = modelcalc.deployment("llama-3.1-8b", "h100", context=8192, batch=16, tp=2).to_dict()
        s = modelcalc.size("llama-3.1-8b", "h100", context=8192, batch=16, tp=2).to_dict()
        for key in ("deployment", "memory_per_gpu", "decode_step", "prefill"):
            self.assertEqual(d[key], s[key], key)

    def test_gpu_rows_are_the_gpus_command(self):
        self.assertEqual([g.to_dict() for g in modelcalc.gpus()], cli_json(["gpus", "--json"]))

    def test_tradeoff_document(self):
        a = lab.Candidate("70b-tp4", 0.80, 17, 3778, 0.88, 227)
        b = lab.Candidate("8b", 0.62, 15, 4253, 0.20, 50)
        path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"modelcalc_candidates_{os.getpid()}.json")
        with open(path, "w") as f:
            json.dump([a.__dict__, b.__dict__], f)
        try:
            theirs = cli_json(["tradeoff", path, "--weights", "quality=0.4,latency=0.3,cost=0.3", "--json"])
        finally:
            os.remove(path)
        r = lab.resolve_tradeoff(a, b, "quality=0.4,latency=0.3,cost=0.3")
        self.assertEqual(r.to_dict(), theirs)
        self.assertEqual(r.winner, theirs["winner"])

    def test_cli_bridge(self):
        status, out, err = modelcalc.cli.run(["train", "--params", "70B", "--tokens", "2T", "--json"])
        self.assertEqual((status, err), (0, ""))
        self.assertEqual(json.loads(out)["flops"]["six_nd"], 6 * 70e9 * 2e12)  # 6 N D = 8.4e23
        self.assertEqual(modelcalc.cli.size(model="llama-3.1-8b", gpu="h100"),
                         modelcalc.size("llama-3.1-8b", "h100").to_dict())

    def test_version_is_the_clis(self):
        self.assertEqual(modelcalc.__version__, subprocess.run([BINARY, "--version"], capture_output=True,
                                                               text=True, check=True).stdout.split()[-1])


class Inputs(unittest.TestCase):
    def test_lists_ranges_arrays_and_strings_agree(self):
        expected = modelcalc.sweep("llama-3.1-8b", "h100", batch="1:8").to_rows()
        self.assertEqual(modelcalc.sweep("llama-3.1-8b", "h100", batch=range(1, 9)).to_rows(), expected)
        self.assertEqual(modelcalc.sweep("llama-3.1-8b", "h100", batch=list(range(1, 9))).to_rows(), expected)
        if numpy is not None:
            self.assertEqual(modelcalc.sweep("llama-3.1-8b", "h100", batch=numpy.arange(1, 9)).to_rows(), expected)

    def test_a_count_as_a_number_or_the_clis_string(self):
        a = modelcalc.size("llama-3.1-8b", "h100", context=8000, batch=4).to_dict()
        self.assertEqual(modelcalc.size("llama-3.1-8b", "h100", context="8K", batch="4").to_dict(), a)  # K = 1,000
        self.assertEqual(modelcalc.size("llama-3.1-8b", "h100", context=8e3, batch=4.0).to_dict(), a)

    def test_seq_is_contexts_cli_spelling(self):
        # The README's call: keywords, seq= as the CLI's --seq, the document by item.
        r = modelcalc.size(model="llama-3.1-8b", gpu="h100", seq=8192, batch=32)
        self.assertEqual(r["decode_step"]["tokens_per_s_aggregate"],
                         modelcalc.size("llama-3.1-8b", "h100", context=8192, batch=32).tokens_per_s_aggregate)
        with self.assertRaises(modelcalc.InputError):
            modelcalc.size("llama-3.1-8b", "h100", seq=8192, context=4096)

    def test_models_and_gpus_as_objects_or_names(self):
        a = modelcalc.size("llama-3.1-8b", "h100").to_dict()
        self.assertEqual(modelcalc.size(modelcalc.Model("llama-3.1-8b"), modelcalc.Gpu("h100")).to_dict(), a)


class TodaysFamilies(unittest.TestCase):
    """Every config of tests/fixtures/hf-configs-2026 through Python equals the executable's answer."""

    FIXTURES = os.path.join(SOURCE, "tests", "fixtures", "hf-configs-2026")

    def test_size_and_kv_budget_on_every_config(self):
        files = sorted(f for f in os.listdir(self.FIXTURES) if f.endswith(".json"))
        self.assertEqual(len(files), 36)  # the 24 shared ones and twelve of issue 34 (tests/fixtures/hf-configs-2026/README.md)
        for f in files:
            path = os.path.join(self.FIXTURES, f)
            with self.subTest(config=f):
                got = modelcalc.size(modelcalc.Model(config=path), "h100", gpus=2, context=4096).to_dict()
                self.assertEqual(got, cli_json(["size", "--config", path, "--gpu", "h100", "--gpus", "2",
                                                "--seq", "4096", "--json"]))
                kv = modelcalc.kv_budget(modelcalc.Model(config=path), "h100", gpus=2, context=4096)
                self.assertEqual(kv["memory_per_gpu"], got["memory_per_gpu"])

    def test_gpt_oss_is_served_as_its_mxfp4_checkpoint(self):
        # gpt-oss-120b's quantization_config: MXFP4 experts, 16-bit attention (no dtype given).
        r = modelcalc.size("gpt-oss-120b", "h100")
        self.assertEqual(r.deployment.weight_dtype, "mxfp4")
        self.assertEqual(r.deployment.attention_dtype, "bf16")
        # 2 x 201088 x 2880 x 2 B + attention 955,517,184 x 2 B + the expert matrices (114,701,598,720 less
        # their 128 x 8640 x 36 = 39,813,120 biases) / 2 + their E8M0 scales / 32 + ((norms 5840 + biases
        # 8000 + router 368,768) x 36 + the expert biases) x 2 B: the checkpoint index's total_size.
        matrices = 114_701_598_720 - 39_813_120
        want = 2 * 201088 * 2880 * 2 + 955_517_184 * 2 + matrices // 2 + matrices // 32 + \
            ((5840 + 8000 + 368_768) * 36 + 39_813_120) * 2
        self.assertEqual(want, 65_248_815_744)
        self.assertEqual(r.memory_per_gpu.weights, want)
        self.assertEqual(r.weight_bytes, want)
        self.assertEqual(modelcalc.deployment("gpt-oss-120b", "h100").memory.weights.total, want)

    def test_hybrid_state_is_reserved_per_sequence(self):
        # Qwen3-Next: 36 Gated DeltaNet layers x (32 x 128 x 128 + 3 x 8192) x 2 B on one GPU.
        r = modelcalc.size("qwen3-next-80b-a3b", "h200")
        self.assertEqual(r.memory_per_gpu.state_per_sequence, 36 * (524_288 + 24_576) * 2)

    def test_the_checkpoints_dtype_is_the_default_everywhere(self):
        # No dtype given: every function takes gpt-oss-120b's MXFP4 checkpoint, as the CLI does.
        theirs = cli_json(["sweep", "--model", "gpt-oss-120b", "--gpu", "h100", "--batch", "1,8", "--format", "json"])
        self.assertEqual(modelcalc.sweep("gpt-oss-120b", "h100", batch=[1, 8]).to_rows(), theirs)
        self.assertEqual(theirs[0]["dtype"], "mxfp4")
        self.assertEqual(without_wall_time(modelcalc.plan("gpt-oss-120b", isl=1024, osl=256, qps=5, gpu="h100").to_dict()),
                         without_wall_time(cli_json(["plan", "--model", "gpt-oss-120b", "--isl", "1024", "--osl",
                                                     "256", "--qps", "5", "--gpu", "h100", "--json"])))


class BadInput(unittest.TestCase):
    def assertInputError(self, keyword, fn, *args, **kwargs):
        with self.assertRaises(modelcalc.InputError) as caught:
            fn(*args, **kwargs)
        message = str(caught.exception)
        self.assertTrue(message.startswith(keyword + ":"), message)
        self.assertNotIn("\n", message)
        self.assertNotIn("--", message)
        self.assertIsInstance(caught.exception, ValueError)
        return message

    def test_the_keyword_is_named(self):
        self.assertInputError("kv_dtype", modelcalc.size, "llama-3.1-8b", "h100", kv_dtype="nvfp4")
        self.assertInputError("context", modelcalc.size, "llama-3.1-8b", "h100", context=0)
        self.assertInputError("context", modelcalc.size, "llama-3.1-8b", "h100", context=2 ** 31)
        self.assertInputError("batch", modelcalc.size, "llama-3.1-8b", "h100", batch="lots")
        self.assertInputError("model", modelcalc.size, "no-such-model", "h100")
        self.assertInputError("gpu", modelcalc.size, "llama-3.1-8b", "no-such-gpu")
        self.assertInputError("tp", modelcalc.size, "llama-3.1-8b", "h100", tp=3)
        self.assertInputError("gpus", modelcalc.size, "llama-3.1-8b", gpus=2)
        self.assertInputError("isl", modelcalc.plan, "llama-3.1-8b", isl=0, osl=512)
        self.assertInputError("tpot", modelcalc.plan, "llama-3.1-8b", isl=2048, osl=512, tpot=-1)
        self.assertInputError("days", modelcalc.train_plan, "llama-3.1-8b", tokens="1T", days=0)
        self.assertInputError("context", modelcalc.sweep, "llama-3.1-8b", "h100", context=[1024, 0])
        self.assertInputError("fields", modelcalc.sweep, "llama-3.1-8b", "h100", fields="no_such_column")
        self.assertInputError("layers", modelcalc.Model, layers=0, hidden=64, heads=8, ffn=128, vocab=100)
        self.assertInputError("kv_heads", modelcalc.Model, layers=2, hidden=64, heads=8, kv_heads=3, ffn=128, vocab=100)
        self.assertInputError("phase", modelcalc.diagnose, EVIDENCE_A, phase="training-ish")
        self.assertInputError("gpu", modelcalc.kv_budget, "llama-3.1-8b")  # no GPU and no budget

    def test_the_message_is_the_clis_line(self):
        # The CLI's line for the same mistake, with the flag spelled as the keyword.
        for ours, flags, keyword, flag in (
                (lambda: modelcalc.size("llama-3.1-8b", "h100", kv_dtype="nvfp4"),
                 ["--kv-dtype", "nvfp4"], "kv_dtype", "--kv-dtype"),
                (lambda: modelcalc.size("llama-3.1-8b", "h100", tp=3), ["--tp", "3"], "tp", "--tp"),
                (lambda: modelcalc.size("llama-3.1-8b", "h100", reserve=1.5), ["--reserve", "1.5"], "reserve",
                 "--reserve")):
            with self.assertRaises(modelcalc.InputError) as caught:
                ours()
            theirs = cli_error(["size", "--model", "llama-3.1-8b", "--gpu", "h100"] + flags)
            self.assertEqual(str(caught.exception), theirs.replace(flag, keyword))

    def test_wrong_types_are_type_errors(self):
        with self.assertRaises(TypeError):
            modelcalc.size("llama-3.1-8b", "h100", batch=True)
        with self.assertRaises(TypeError):
            modelcalc.size(42)
        with self.assertRaises(TypeError):
            modelcalc.plan("llama-3.1-8b", osl=512)  # isl is required


def battery_values(field):
    """Values a field's declaration rules out whatever the other keywords (src/cli/battery_test.cc's rules):
    text not of its type, numbers outside [min, max]."""
    kind = field["kind"]  # app::Type: 0 bool, 1 int, 2 real, 3 text, 4 choice, 5 dtype, 6 range
    if kind in (0, 3):
        return []
    if kind == 4:
        return ["no-such-choice"]
    if kind == 5:
        return ["fp13"]
    if kind == 6:
        return ["abc", "15-8"]
    lo, hi = field["min"], field["max"]
    values = ["abc", "1e400", float("nan"), float("inf"), float("-inf")]
    values.append(lo if field["min_open"] else lo - max(1.0, abs(lo)))
    if 0 < hi < 1e300:
        values.append(hi * 4 + 4)
    if kind == 1:
        values.append(1.5)
    return values


class Battery(unittest.TestCase):
    """Issue #39's battery in Python: every field of each command's request table, given a value its declaration
    rules out, raises InputError naming the keyword (one line, no CLI flag in it)."""
    CALLS = {
        "size": (modelcalc.size, lambda **kw: modelcalc.size("llama-3.1-8b", "h100", **kw)),
        "kv-budget": (modelcalc.kv_budget, lambda **kw: modelcalc.kv_budget("llama-3.1-8b", "h100", **kw)),
        "plan": (modelcalc.plan, lambda **kw: modelcalc.plan("llama-3.1-8b", **{"isl": 512, "osl": 128, "gpu": "h100",
                                                                                "max_gpus": 8, **kw})),
        "diagnose": (modelcalc.diagnose, lambda **kw: modelcalc.diagnose(**{"model": "llama-3.1-8b", "gpu": "h100",
                                                                             "tokens_per_s": 20, **kw})),
        "sweep": (modelcalc.sweep, lambda **kw: modelcalc.sweep("llama-3.1-8b", "h100", **kw)),
    }
    # A shape typed field by field is a modelcalc.Model, a custom GPU a modelcalc.Gpu (each with its own checks,
    # BadInput above): the functions take those objects, not these keywords (diagnose takes shape facts).
    WHOLE_OBJECTS = {"layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab", "glu", "tied", "config",
                     "checkpoint", "bandwidth", "capacity", "peak"}
    SHAPE_FACTS = {"layers", "hidden", "heads", "kv_heads", "head_dim"}  # diagnose's keywords among them

    def test_every_field_is_a_keyword(self):
        missing = []
        for command, (fn, _) in self.CALLS.items():
            params = inspect.signature(fn).parameters
            for field in modelcalc._modelcalc._field_table(command):
                name = field["name"]
                whole = self.WHOLE_OBJECTS - (self.SHAPE_FACTS if command == "diagnose" else set())
                if field["positional"] or name in params or name in whole:
                    continue
                missing.append(f"{fn.__name__}({name}=)")
        self.assertEqual(missing, [])

    def test_every_bad_value_is_an_input_error_naming_the_keyword(self):
        failures, cases = [], 0
        for command, (fn, call) in self.CALLS.items():
            params = inspect.signature(fn).parameters
            for field in modelcalc._modelcalc._field_table(command):
                if field["positional"] or field["file"] or field["name"] in ("model", "gpu"):
                    continue
                if field["name"] not in params:
                    continue  # test_every_field_is_a_keyword
                values = battery_values(field)
                if field["list"]:
                    values = values + [[1, v] if not isinstance(v, str) else "1," + v for v in values]
                for value in values:
                    cases += 1
                    try:
                        call(**{field["name"]: value})
                        failures.append(f"{command} {field['name']}={value!r}: accepted")
                    except modelcalc.InputError as e:
                        m = str(e)
                        if not m.startswith(field["name"] + ":") or "\n" in m or "--" in m:
                            failures.append(f"{command} {field['name']}={value!r}: {m}")
                    except Exception as e:  # a crash, or a TypeError where the value's type is right
                        failures.append(f"{command} {field['name']}={value!r}: {type(e).__name__}: {e}")
        self.assertGreater(cases, 150)
        self.assertEqual(failures, [], "\n".join(failures[:100]))


class Columns(unittest.TestCase):
    def test_typed_columns_and_memory_per_row(self):
        cols = modelcalc.sweep(["llama-3.1-8b", "mixtral-8x7b-v0.1"], "h100", context="1k:8k:x2", batch=range(1, 33))
        self.assertEqual(len(cols), 2 * 4 * 32)
        self.assertEqual(cols.kind("weight_bytes"), "int")
        self.assertEqual(cols.kind("tokens_per_s_aggregate"), "real")
        self.assertEqual(cols.kind("fits"), "flag")
        self.assertEqual(cols.labels("model"), ["llama-3.1-8b", "mixtral-8x7b-v0.1"])
        self.assertEqual(list(cols["model"][:2]), ["llama-3.1-8b", "llama-3.1-8b"])
        # The default columns: 15 numbers (gpus, context, batch, params_total, params_active, weight_bytes,
        # kv_bytes_per_sequence, max_sequences, step_s, two tokens/s, and the four predicted_ twins) x 8 B
        # + 2 flags (fits, predicted_fits) x 1 B + 6 texts (model, gpu, dtype, kv_dtype, regime,
        # regime_at_capacity) x 2 B = 134 B a row.
        self.assertEqual(cols.nbytes, 134 * len(cols))
        self.assertEqual(cols.kind("max_sequences"), "int")
        if numpy is not None:
            self.assertEqual(cols.weight_bytes.dtype, numpy.int64)
            self.assertEqual(cols.tokens_per_s_aggregate.dtype, numpy.float64)
            self.assertEqual(cols.fits.dtype, numpy.bool_)

    @unittest.skipIf(pandas is None, "pandas is not installed")
    def test_to_pandas(self):
        cols = modelcalc.sweep("llama-3.1-8b", ["h100", "mi300x"], batch=range(1, 5))
        df = cols.to_pandas()
        self.assertEqual(list(df.columns), cols.keys())
        self.assertEqual(str(df["gpu"].dtype), "category")
        self.assertEqual(df["batch"].tolist(), [1, 2, 3, 4, 1, 2, 3, 4])

    def test_chunks(self):
        whole = modelcalc.sweep("llama-3.1-8b", ["h100", "mi300x"], batch="1:100").to_rows()
        chunks = []
        rows = modelcalc.sweep("llama-3.1-8b", ["h100", "mi300x"], batch="1:100", chunk_rows=64,
                               on_chunk=lambda c: chunks.append(c.to_rows()))
        self.assertEqual(rows, 200)
        self.assertEqual([len(c) for c in chunks], [64, 64, 64, 8])
        self.assertEqual([r for c in chunks for r in c], whole)

    def test_an_error_in_on_chunk_stops_the_sweep(self):
        def stop(_):
            raise KeyError("stop here")
        with self.assertRaises(KeyError):
            modelcalc.sweep("llama-3.1-8b", "h100", batch="1:1000", chunk_rows=10, on_chunk=stop)


class Package(unittest.TestCase):
    def test_real_signatures_and_docstrings(self):
        sig = inspect.signature(modelcalc.size)
        self.assertEqual(sig.parameters["context"].default, None)
        self.assertEqual(sig.parameters["batch"].default, 1)
        self.assertEqual(sig.parameters["dtype"].default, None)  # the checkpoint's own, else fp16: the command's
        self.assertEqual(list(inspect.signature(modelcalc.Model).parameters)[:2], ["name", "config"])
        for name in modelcalc.__all__:
            obj = getattr(modelcalc, name)
            self.assertTrue(obj.__doc__, name)
        for name in lab.__all__:
            if callable(getattr(lab, name)):
                self.assertTrue(getattr(lab, name).__doc__, name)

    def test_the_stubs_name_everything_public(self):
        here = os.path.dirname(modelcalc.__file__)
        for module, stub in ((modelcalc, "__init__.pyi"), (lab, "lab.pyi")):
            with open(os.path.join(here, stub)) as f:
                tree = ast.parse(f.read())
            names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
            names |= {t.id for n in tree.body if isinstance(n, ast.AnnAssign) for t in [n.target]}
            names |= {a.asname or a.name for n in tree.body if isinstance(n, ast.ImportFrom) for a in n.names}
            missing = [n for n in module.__all__ if n not in names]
            self.assertEqual(missing, [], stub)
        # Every size attribute the result has is in the stub.
        with open(os.path.join(here, "__init__.pyi")) as f:
            stub = f.read()
        for name, _, _, _ in modelcalc.sweep_columns():
            if name not in ("model", "gpu"):
                self.assertIn(f"    {name}: ", stub, name)

    def test_lab_functions_run_in_the_core(self):
        # The lab's KV formula and size's agree: llama-3.1-8b's 32 layers, d 4096, 8 of 32 KV heads, fp16.
        r = modelcalc.size("llama-3.1-8b", "h100", context=4096)
        self.assertEqual(lab.kv_cache_bytes(32, 4096, 4096, n_heads=32, n_kv_heads=8), r.kv_bytes_per_sequence)


if __name__ == "__main__":
    if len(sys.argv) > 1 and not sys.argv[1].startswith("-"):
        BINARY = sys.argv.pop(1)
    if not BINARY:
        sys.exit("usage: test_modelcalc.py MODELCALC_BINARY (or set MODELCALC_BINARY)")
    unittest.main(verbosity=2)
