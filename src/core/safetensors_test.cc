// Safetensors headers as the ground truth of a checkpoint (include/modelcalc/checkpoint.h):
// real header metadata read header-only, each hostile header refused in one line.
#include "safetensors.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "modelcalc/checkpoint.h"
#include "modelcalc/hf_config.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

namespace fs = std::filesystem;

struct Entry {
  std::string name, dtype;
  std::vector<int64_t> shape;
};

int64_t bytes_of(const Entry& e) {
  int64_t n = 1;
  for (int64_t d : e.shape) n *= d;
  return n * safetensors_dtype_bits(e.dtype) / 8;
}

// The header JSON of `entries`, laid out one after the other from offset 0.
std::string header_json(const std::vector<Entry>& entries) {
  nlohmann::json h = nlohmann::json::object();
  int64_t at = 0;
  for (const Entry& e : entries) {
    h[e.name] = {{"dtype", e.dtype}, {"shape", e.shape}, {"data_offsets", {at, at + bytes_of(e)}}};
    at += bytes_of(e);
  }
  h["__metadata__"] = {{"format", "pt"}};
  return h.dump();
}

// A shard cut off after its header (8-byte little-endian length, then the JSON): no tensor data.
void write_header_only(const fs::path& path, const std::string& json) {
  std::string prefix(8, '\0');
  uint64_t n = json.size();
  for (int i = 0; i < 8; ++i) prefix[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  std::ofstream(path, std::ios::binary) << prefix << json;
}

fs::path fresh_dir(const std::string& name) {
  const fs::path dir = fs::path(testing::TempDir()) / ("safetensors_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Layer 0 and the embedding of nvidia/DeepSeek-R1-0528-FP4, as the Hub's safetensors viewer lists them (name,
// shape, dtype), transcribed in a public DeepSeek FP4 inference plugin's design notes ("deepseek-r1-0528-fp4
// 部分权重"): NVFP4 dense MLP (U8 weights, F8_E4M3 per-16 scales, F32 global and input scales), attention
// kept BF16, FP8 KV scales.
const std::vector<Entry> kR1Fp4Layer0 = {
    {"model.embed_tokens.weight", "BF16", {129280, 7168}},
    {"model.layers.0.input_layernorm.weight", "BF16", {7168}},
    {"model.layers.0.mlp.down_proj.input_scale", "F32", {}},
    {"model.layers.0.mlp.down_proj.weight", "U8", {7168, 9216}},
    {"model.layers.0.mlp.down_proj.weight_scale", "F8_E4M3", {7168, 1152}},
    {"model.layers.0.mlp.down_proj.weight_scale_2", "F32", {}},
    {"model.layers.0.mlp.gate_proj.input_scale", "F32", {}},
    {"model.layers.0.mlp.gate_proj.weight", "U8", {18432, 3584}},
    {"model.layers.0.mlp.gate_proj.weight_scale", "F8_E4M3", {18432, 448}},
    {"model.layers.0.mlp.gate_proj.weight_scale_2", "F32", {}},
    {"model.layers.0.mlp.up_proj.input_scale", "F32", {}},
    {"model.layers.0.mlp.up_proj.weight", "U8", {18432, 3584}},
    {"model.layers.0.mlp.up_proj.weight_scale", "F8_E4M3", {18432, 448}},
    {"model.layers.0.mlp.up_proj.weight_scale_2", "F32", {}},
    {"model.layers.0.post_attention_layernorm.weight", "BF16", {7168}},
    {"model.layers.0.self_attn.k_proj.k_scale", "F32", {}},
    {"model.layers.0.self_attn.kv_a_layernorm.weight", "BF16", {512}},
    {"model.layers.0.self_attn.kv_a_proj_with_mqa.weight", "BF16", {576, 7168}},
    {"model.layers.0.self_attn.kv_b_proj.weight", "BF16", {32768, 512}},
    {"model.layers.0.self_attn.o_proj.weight", "BF16", {7168, 16384}},
    {"model.layers.0.self_attn.q_a_layernorm.weight", "BF16", {1536}},
    {"model.layers.0.self_attn.q_a_proj.weight", "BF16", {1536, 7168}},
    {"model.layers.0.self_attn.q_b_proj.weight", "BF16", {24576, 1536}},
    {"model.layers.0.self_attn.v_proj.v_scale", "F32", {}},
};

int64_t bytes_of(const CheckpointCount& c, const std::string& dtype) {
  for (const auto& [d, b] : c.bytes_by_dtype) {
    if (d == dtype) return b;
  }
  return 0;
}

TEST(Safetensors, RealNvfp4HeaderCountsValuesAndScalesHeaderOnly) {
  const fs::path dir = fresh_dir("r1_fp4");
  write_header_only(dir / "model.safetensors", header_json(kR1Fp4Layer0));
  auto c = count_safetensors(dir.string(), /*num_layers=*/61);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->shards, 1);
  EXPECT_EQ(c->tensors, 24);
  // Embedding 129280 x 7168.
  EXPECT_EQ(c->params.embeddings, 926'679'040);
  // MLA attention, BF16: kv_a 576 x 7168 = 4,128,768; kv_b 32768 x 512 = 16,777,216; o 7168 x 16384 =
  // 117,440,512; q_a 1536 x 7168 = 11,010,048; q_b 24576 x 1536 = 37,748,736 -> 187,105,280, DeepSeek-V3's layer
  // as the config builds it (hf_config_test.cc, DeepSeekV3).
  EXPECT_EQ(c->params.attention, 187'105'280);
  // NVFP4 MLP: two values a byte of U8 beside an F8_E4M3 weight_scale: down 7168 x 9216 x 2 = 7168 x 18432,
  // gate and up 18432 x 3584 x 2 = 18432 x 7168 each: 3 x 132,120,576 = 396,361,728, the config's dense layer.
  EXPECT_EQ(c->params.mlp_dense, 396'361'728);
  // Norms 7168 + 7168 + 512 + 1536.
  EXPECT_EQ(c->params.norms, 16'384);
  // Scales: weight_scale 7168 x 1152 + 2 x 18432 x 448 = 24,772,608, plus 3 input_scale, 3 weight_scale_2,
  // k_scale and v_scale scalars.
  EXPECT_EQ(c->scales, 24'772'608 + 8);
  // Bytes: BF16 2 x (926,679,040 + 187,105,280 + 16,384); U8 66,060,288 + 2 x 66,060,288; F8 24,772,608; F32 8 x 4.
  EXPECT_EQ(bytes_of(*c, "BF16"), 2 * (926'679'040LL + 187'105'280 + 16'384));
  EXPECT_EQ(bytes_of(*c, "U8"), 3 * 66'060'288LL);
  EXPECT_EQ(bytes_of(*c, "F8_E4M3"), 24'772'608);
  EXPECT_EQ(bytes_of(*c, "F32"), 32);
  EXPECT_EQ(c->other, 0);
}

// tbressers/WizardLM-2-8x22B@c2092670 (a GitHub mirror of the Hub repository): its config.json and
// model.safetensors.index.json, copied to tests/fixtures/safetensors (59 shards, 1,739 tensors, total_size
// 281,241,268,224). The shards there are LFS pointers, so each header is written from its tensor's name by the
// Mixtral shapes of that config (d 6144, 48 heads of 128, 8 KV heads, 8 experts of 16384, V 32000, BF16); the
// index's own total_size checks every shape and the reader's sum.
std::vector<int64_t> wizard_shape(const std::string& n) {
  if (n == "model.embed_tokens.weight" || n == "lm_head.weight") return {32000, 6144};
  if (n.ends_with("norm.weight")) return {6144};
  if (n.ends_with("q_proj.weight") || n.ends_with("o_proj.weight")) return {6144, 6144};
  if (n.ends_with("k_proj.weight") || n.ends_with("v_proj.weight")) return {1024, 6144};
  if (n.ends_with("gate.weight")) return {8, 6144};
  if (n.ends_with("w2.weight")) return {6144, 16384};
  return {16384, 6144};  // w1, w3
}

TEST(Safetensors, RealMoeIndexTotalSizeAndCountOfItsConfig) {
  const fs::path src = fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/safetensors/WizardLM-2-8x22B";
  const fs::path dir = fresh_dir("wizard");
  fs::copy_file(src / "config.json", dir / "config.json");
  fs::copy_file(src / "model.safetensors.index.json", dir / "model.safetensors.index.json");
  std::ifstream in(src / "model.safetensors.index.json");
  const auto index = nlohmann::json::parse(in);
  std::map<std::string, std::vector<Entry>> shards;
  for (const auto& [name, file] : index["weight_map"].items()) {
    shards[file.get<std::string>()].push_back({name, "BF16", wizard_shape(name)});
  }
  for (const auto& [file, entries] : shards) write_header_only(dir / file, header_json(entries));
  auto c = count_safetensors(dir.string(), 56);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->shards, 59);
  EXPECT_EQ(c->tensors, 1'739);
  EXPECT_EQ(c->bytes, 281'241'268'224);  // the index's total_size
  EXPECT_EQ(c->index_total_size, 281'241'268'224);
  // Mixtral (modeling_mixtral.py) with V 32000: layer = attention 2 x 6144^2 + 2 x 6144 x 1024 (88,080,384) +
  // experts 8 x 3 x 6144 x 16384 (2,415,919,104) + router 8 x 6144 + norms 2 x 6144 = 2,504,060,928; x 56 =
  // 140,227,411,968; + norm 6144 + 2 x 32000 x 6144 = 140,620,634,112 = total_size / 2.
  EXPECT_EQ(c->params.total(), 140'620'634'112);
  EXPECT_EQ(c->params.mlp_routed, 56LL * 2'415'919'104);
  EXPECT_EQ(c->params.router, 56LL * 8 * 6144);
  // The config reads to the same count, so the checkpoint agrees with it.
  auto m = load_checkpoint(dir.string(), /*require_headers=*/true);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->exact->total(), 140'620'634'112);
  EXPECT_TRUE(compare_counts(*m->exact, c->params).empty());
  ASSERT_FALSE(m->assumptions.empty());
  EXPECT_NE(m->assumptions.back().find("hold the 140620634112 parameters its config builds"), std::string::npos)
      << m->assumptions.back();
}

TEST(Safetensors, ACheckpointThatDiffersFromItsConfigSaysByHowMuchAndWhere) {
  // The same headers, but the config says vocab 32768 (Mixtral-8x22B-v0.1's): the checkpoint holds
  // 2 x 768 x 6144 = 9,437,184 fewer, in embeddings and lm_head, and is counted as it holds them.
  const fs::path src = fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/safetensors/WizardLM-2-8x22B";
  const fs::path dir = fresh_dir("wizard_vocab");
  auto config = nlohmann::json::parse(std::ifstream(src / "config.json"));
  config["vocab_size"] = 32768;
  std::ofstream(dir / "config.json") << config.dump();
  const std::vector<Entry> entries = {{"model.embed_tokens.weight", "BF16", {32000, 6144}},
                                      {"lm_head.weight", "BF16", {32000, 6144}}};
  write_header_only(dir / "model.safetensors", header_json(entries));
  auto m = load_checkpoint(dir.string(), true);
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->exact->embeddings, 32000LL * 6144);
  EXPECT_EQ(m->exact->lm_head, 32000LL * 6144);
  const std::string& note = m->assumptions.back();
  EXPECT_NE(note.find("embeddings -4718592"), std::string::npos) << note;
  EXPECT_NE(note.find("lm_head -4718592"), std::string::npos) << note;
  EXPECT_NE(note.find("attention -"), std::string::npos) << note;  // no layers in these headers at all
}

// Each hostile header is refused with one line naming the file.
std::string refusal(const fs::path& dir) {
  auto c = count_safetensors(dir.string(), -1);
  EXPECT_FALSE(c.ok());
  if (c.ok()) return "";
  EXPECT_EQ(c.status().message().find('\n'), std::string::npos) << c.status().message();
  return c.status().message();
}

void write_raw(const fs::path& path, uint64_t declared, const std::string& json) {
  std::string prefix(8, '\0');
  for (int i = 0; i < 8; ++i) prefix[static_cast<size_t>(i)] = static_cast<char>((declared >> (8 * i)) & 0xff);
  std::ofstream(path, std::ios::binary) << prefix << json;
}

TEST(Safetensors, HostileHeadersAreRefusedInOneLine) {
  const std::string ok = R"({"a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]}})";
  struct Case {
    const char* what;
    uint64_t declared;  // 0: the JSON's own length
    std::string json;
    const char* says;
  } cases[] = {
      {"length beyond the file", 1000, ok, "beyond the file"},
      {"length beyond 100 MB", (uint64_t{100} << 20) + 1, ok, "MB limit"},
      {"length overflowing", ~uint64_t{0}, ok, "MB limit"},
      {"bad JSON", 0, R"({"a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 12]})", "malformed JSON"},
      {"duplicate tensor", 0, R"({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4]}, "a": {"dtype": "F32", "shape": [], "data_offsets": [4, 8]}})", "duplicate key"},
      {"unknown dtype", 0, R"({"a": {"dtype": "F12", "shape": [2], "data_offsets": [0, 3]}})", "unknown dtype 'F12'"},
      {"size not its range", 0, R"({"a": {"dtype": "BF16", "shape": [2, 3], "data_offsets": [0, 10]}})", "data_offsets span 10"},
      {"overlapping", 0, R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})", "overlaps"},
      {"a hole: beyond the contiguous layout", 0, R"({"a": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}, "b": {"dtype": "F32", "shape": [2], "data_offsets": [16, 24]}})", "contiguous layout"},
      {"offsets backwards", 0, R"({"a": {"dtype": "F32", "shape": [0], "data_offsets": [8, 0]}})", "begin <= end"},
      {"negative shape", 0, R"({"a": {"dtype": "F32", "shape": [-1], "data_offsets": [0, 0]}})", "whole number >= 0"},
      {"shape overflowing", 0, R"({"a": {"dtype": "F32", "shape": [4294967296, 4294967296, 4], "data_offsets": [0, 0]}})", "too large"},
      {"not an object", 0, R"([1, 2])", "not a JSON object"},
      {"metadata not strings", 0, R"({"__metadata__": {"format": 1}})", "not a string"},
      {"unknown key", 0, R"({"a": {"dtype": "F32", "shape": [], "data_offsets": [0, 4], "x": 1}})", "unknown key"},
  };
  for (const Case& c : cases) {
    const fs::path dir = fresh_dir("hostile");
    write_raw(dir / "model.safetensors", c.declared == 0 ? c.json.size() : c.declared, c.json);
    const std::string e = refusal(dir);
    EXPECT_NE(e.find(c.says), std::string::npos) << c.what << ": " << e;
    EXPECT_NE(e.find("model.safetensors"), std::string::npos) << c.what << ": " << e;
  }
  // Shorter than the length prefix.
  const fs::path dir = fresh_dir("short");
  std::ofstream(dir / "model.safetensors", std::ios::binary) << "abc";
  EXPECT_NE(refusal(dir).find("8-byte length"), std::string::npos);
}

TEST(Safetensors, TheIndexMustPlaceEveryTensorAndAccountForItsBytes) {
  const std::vector<Entry> one = {{"model.norm.weight", "BF16", {8}}};
  auto with_index = [&](const std::string& index, const std::vector<Entry>& shard) {
    const fs::path dir = fresh_dir("index");
    std::ofstream(dir / "model.safetensors.index.json") << index;
    write_header_only(dir / "model-00001-of-00001.safetensors", header_json(shard));
    return dir;
  };
  // A tensor the index does not place in that shard.
  EXPECT_NE(refusal(with_index(R"({"weight_map": {"other.weight": "model-00001-of-00001.safetensors"}})", one))
                .find("which the index does not place"),
            std::string::npos);
  // A shard the index names that is not there.
  EXPECT_NE(refusal(with_index(R"({"weight_map": {"model.norm.weight": "model-00002-of-00002.safetensors"}})", one))
                .find("no such file"),
            std::string::npos);
  // A shard name with a path in it.
  EXPECT_NE(refusal(with_index(R"({"weight_map": {"model.norm.weight": "../model.safetensors"}})", one))
                .find("not a file beside the index"),
            std::string::npos);
  // Offsets beyond the index's total_size (16 bytes laid out, 10 declared).
  EXPECT_NE(refusal(with_index(R"({"metadata": {"total_size": 10},
      "weight_map": {"model.norm.weight": "model-00001-of-00001.safetensors"}})", one))
                .find("total_size is 10 bytes"),
            std::string::npos);
  // The same index, total_size right: accepted, header only.
  auto c = count_safetensors(with_index(R"({"metadata": {"total_size": 16},
      "weight_map": {"model.norm.weight": "model-00001-of-00001.safetensors"}})", one).string(), -1);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->params.norms, 8);
  EXPECT_EQ(c->bytes, 16);
}

TEST(Safetensors, AShardMustBeARegularFileThroughItsLinks) {
  const fs::path dir = fresh_dir("fifo");
  ASSERT_EQ(::mkfifo((dir / "model.safetensors").c_str(), 0600), 0);
  EXPECT_NE(refusal(dir).find("is a FIFO"), std::string::npos);
  // A link to a regular shard (a Hugging Face cache snapshot) is read.
  const fs::path linked = fresh_dir("linked");
  write_header_only(linked / "blob", header_json({{"model.norm.weight", "F32", {4}}}));
  fs::create_symlink(linked / "blob", linked / "model.safetensors");
  auto c = count_safetensors(linked.string(), -1);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->params.norms, 4);
}

TEST(Safetensors, ACheckpointFolderWithoutHeadersIsRefusedOnlyWhenTheyAreRequired) {
  const fs::path dir = fresh_dir("no_headers");
  fs::copy_file(fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/safetensors/WizardLM-2-8x22B/config.json",
                dir / "config.json");
  EXPECT_TRUE(load_checkpoint(dir.string(), false).ok());
  auto r = load_checkpoint(dir.string(), true);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no model.safetensors.index.json"), std::string::npos);
  // The fixture folder as fetched: config.json and the index, no shard. --config counts the config and says
  // so; --checkpoint's reading names the first shard the index lists that is missing.
  const std::string fetched = (fs::path(MODELCALC_SOURCE_DIR) / "tests/fixtures/safetensors/WizardLM-2-8x22B").string();
  auto cfg = load_checkpoint(fetched, false);
  ASSERT_TRUE(cfg.ok()) << cfg.status().message();
  EXPECT_EQ(cfg->exact->total(), 140'620'634'112);  // the config's count (RealMoeIndexTotalSizeAndCountOfItsConfig)
  ASSERT_FALSE(cfg->assumptions.empty());
  EXPECT_NE(cfg->assumptions.back().find("none of its shards"), std::string::npos) << cfg->assumptions.back();
  auto need = load_checkpoint(fetched, true);
  ASSERT_FALSE(need.ok());
  EXPECT_NE(need.status().message().find("model-00001-of-00059.safetensors"), std::string::npos)
      << need.status().message();
}

}  // namespace
}  // namespace modelcalc
