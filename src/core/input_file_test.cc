#include "input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "modelcalc/diagnose.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {
namespace {

namespace fs = std::filesystem;

class InputFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("mc_input_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string write(const std::string& name, const std::string& text) {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }
  fs::path dir_;
};

bool one_line(const std::string& s) { return s.find('\n') == std::string::npos; }

TEST_F(InputFileTest, ReadsARegularFile) {
  EXPECT_EQ(read_input_file(write("a.txt", "hello\n")).value(), "hello\n");
  EXPECT_EQ(read_input_file(write("empty.txt", "")).value(), "");
}

TEST_F(InputFileTest, RefusesWhatIsNotARegularFileWithoutReadingIt) {
  const std::string fifo = (dir_ / "fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = read_input_file(fifo);  // must return at once: nobody writes to it
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("FIFO"), std::string::npos) << r.status().message();
  auto z = read_input_file("/dev/zero");  // would read until memory runs out
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("device"), std::string::npos) << z.status().message();
  auto d = read_input_file(dir_.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("folder"), std::string::npos) << d.status().message();
  auto missing = read_input_file((dir_ / "nope.json").string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("no such file"), std::string::npos);
}

TEST_F(InputFileTest, RefusesFilesAboveTheSizeCap) {
  const std::string big = (dir_ / "big.json").string();
  {
    std::ofstream f(big);
  }
  fs::resize_file(big, kMaxInputFileBytes + 1);  // sparse: costs no disk
  auto r = read_input_file(big);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("16 MiB"), std::string::npos) << r.status().message();
  fs::resize_file(big, kMaxInputFileBytes);  // exactly the cap is fine
  EXPECT_EQ(read_input_file(big).value().size(), kMaxInputFileBytes);
}

TEST(StrictJsonTest, DuplicateKeysAreErrors) {
  auto r = parse_json_strict(R"({"a": 1, "b": {"c": 2, "c": 3}})", "f.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("duplicate key \"c\""), std::string::npos) << r.status().message();
  EXPECT_TRUE(parse_json_strict(R"({"a": {"c": 1}, "b": {"c": 2}})", "f.json").ok());  // same key, two objects
}

TEST(StrictJsonTest, NestingIsLimited) {
  const std::string ok = std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']');
  EXPECT_TRUE(parse_json_strict(ok, "f.json").ok());
  const std::string deep = std::string(kMaxJsonDepth + 1, '[') + std::string(kMaxJsonDepth + 1, ']');
  auto r = parse_json_strict(deep, "f.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nested more than 64"), std::string::npos) << r.status().message();
  // 1,000,000 open brackets: refused at depth 65, long before memory matters.
  EXPECT_FALSE(parse_json_strict(std::string(1'000'000, '['), "f.json").ok());
}

TEST(StrictJsonTest, EveryErrorIsOneLineNamingTheSource) {
  for (const char* bad : {"{", "{\"a\": 1e400}", "[1, 2,]", "{\"a\":\n\n nul}", "\"\\ud800\"", "", "{} {}",
                          "{\"a\": -1e999}", "\xff"}) {
    auto r = parse_json_strict(bad, "src.json");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.status().message().rfind("src.json: malformed JSON", 0), 0u) << r.status().message();
    EXPECT_TRUE(one_line(r.status().message())) << r.status().message();
  }
  auto r = parse_json_strict("{\n  \"a\": 1e400\n}", "src.json");
  EXPECT_NE(r.status().message().find("line 2"), std::string::npos) << r.status().message();
}

// The readers: 1e400 was "internal error: [json.exception.out_of_range.406]".
TEST(StrictJsonTest, ReadersMapNumberOverflowToAFieldError) {
  auto e = parse_evidence_json(R"({"measured": {"tokens_per_s_per_sequence": 1e400}})", "ev.json");
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message().rfind("ev.json: ", 0), 0u) << e.status().message();
  auto big = parse_evidence_json(R"({"measured": {"tokens_per_s_per_sequence": 1e300}})", "ev.json");
  ASSERT_FALSE(big.ok());
  EXPECT_NE(big.status().message().find("measured.tokens_per_s_per_sequence"), std::string::npos)
      << big.status().message();
  auto huge_count = parse_evidence_json(R"({"batch": 18446744073709551615})", "ev.json");
  ASSERT_FALSE(huge_count.ok());
  EXPECT_NE(huge_count.status().message().find("batch"), std::string::npos);
  auto dup = parse_evidence_json(R"({"batch": 1, "batch": 64})", "ev.json");
  ASSERT_FALSE(dup.ok());
  EXPECT_NE(dup.status().message().find("duplicate key \"batch\""), std::string::npos);
  auto cfg = model_from_hf_json(R"({"model_type": "llama", "model_type": "gpt2"})", "config.json");
  ASSERT_FALSE(cfg.ok());
  EXPECT_NE(cfg.status().message().find("duplicate key \"model_type\""), std::string::npos);
}

TEST_F(InputFileTest, ConfigReaderRefusesAFifo) {
  const std::string fifo = (dir_ / "config.json").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto r = load_hf_config(fifo);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("FIFO"), std::string::npos) << r.status().message();
  auto z = load_hf_config("/dev/zero");
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("device"), std::string::npos) << z.status().message();
}

}  // namespace
}  // namespace modelcalc
