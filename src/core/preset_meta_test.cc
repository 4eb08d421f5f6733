// The preset index reads only each preset's "_modelcalc" object (for a fast
// cold start). It must read exactly what a parse of the whole file reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "hf_reader.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {
namespace {

TEST(PresetMeta, TheScannedObjectIsTheWholeFilesTopLevelObject) {
  int files = 0;
  for (const EmbeddedFile& f : embedded_files()) {
    if (!f.path.starts_with("presets/")) continue;
    ++files;
    const auto whole = nlohmann::json::parse(f.content, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(whole.is_object()) << f.path << " is not a JSON object";
    ASSERT_TRUE(whole.contains("_modelcalc")) << f.path;
    const auto scanned = nlohmann::json::parse(hf::preset_meta_text(f.content), nullptr, false);
    EXPECT_EQ(scanned, whole["_modelcalc"]) << f.path;
    // And the whole file is a config the reader accepts: the index no longer
    // parses it, so this is where a malformed preset is caught.
    const auto name = whole["_modelcalc"]["name"].get<std::string>();
    EXPECT_TRUE(find_preset(name).ok()) << f.path;
  }
  EXPECT_GT(files, 0);
  EXPECT_EQ(static_cast<int>(presets().size()), files);
}

TEST(PresetMeta, ScannerHandlesNestingStringsAndAbsence) {
  // Braces and escaped quotes inside strings do not end the object; a nested object does not either.
  const std::string_view text = R"({"a": 1, "_modelcalc" : {"name": "x}\"{", "n": {"k": "}"}}, "b": 2})";
  EXPECT_EQ(hf::preset_meta_text(text), R"({"name": "x}\"{", "n": {"k": "}"}})");
  EXPECT_EQ(hf::preset_meta_text(R"({"a": 1})"), "");
  EXPECT_EQ(hf::preset_meta_text(R"({"_modelcalc": 3})"), "");
  EXPECT_EQ(hf::preset_meta_text(R"({"_modelcalc": {"name": "unterminated")"), "");
}

}  // namespace
}  // namespace modelcalc
