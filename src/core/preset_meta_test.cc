// The preset index is read at build time (cmake/embed.cmake: each preset's
// "_modelcalc" name and hf_repo) so a cold start parses no preset to find one.
// It must read exactly what a parse of the whole file reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "embedded_data.h"
#include "modelcalc/hf_config.h"

namespace modelcalc {
namespace {

TEST(PresetMeta, TheBuildTimeIndexIsWhatTheWholeFileSays) {
  int files = 0;
  for (const EmbeddedFile& f : embedded_files()) {
    if (!f.path.starts_with("presets/")) continue;
    ++files;
    const auto whole = nlohmann::json::parse(f.content, nullptr, /*allow_exceptions=*/false);
    ASSERT_TRUE(whole.is_object()) << f.path << " is not a JSON object";
    ASSERT_TRUE(whole.contains("_modelcalc")) << f.path;
    const auto& meta = whole["_modelcalc"];
    const std::string name = meta["name"].get<std::string>();
    const std::string repo = meta.contains("hf_repo") ? meta["hf_repo"].get<std::string>() : "";
    int matches = 0;
    for (const EmbeddedPreset& p : embedded_presets()) {
      if (p.content.data() != f.content.data()) continue;
      ++matches;
      EXPECT_EQ(p.name, name) << f.path;
      EXPECT_EQ(p.hf_repo, repo) << f.path;
      EXPECT_EQ(p.content, f.content) << f.path;
    }
    EXPECT_EQ(matches, 1) << f.path;
    // And the whole file is a config the reader accepts: the index does not
    // parse it, so this is where a malformed preset is caught.
    EXPECT_TRUE(find_preset(name).ok()) << f.path;
    // Found by its name and by its HF repo, with and without the owner.
    if (!repo.empty()) {
      auto by_repo = find_preset(repo);
      ASSERT_TRUE(by_repo.ok()) << repo;
      EXPECT_EQ(by_repo->name, name);
      auto by_base = find_preset(repo.substr(repo.find('/') + 1));
      ASSERT_TRUE(by_base.ok()) << repo;
      EXPECT_EQ(by_base->name, name);
    }
  }
  EXPECT_GT(files, 0);
  EXPECT_EQ(static_cast<int>(embedded_presets().size()), files);
  EXPECT_EQ(static_cast<int>(presets().size()), files);
}

}  // namespace
}  // namespace modelcalc
