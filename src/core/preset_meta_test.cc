// The preset index is read at build time (cmake/embed.cmake: each preset's
// "_modelcalc" name, hf_repo and repos list) so a cold start parses no preset to find one.
// It must read exactly what a parse of the whole file reads.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

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
    // Found by its name and by its HF repo (the id names the spec).
    if (!repo.empty()) {
      auto by_repo = find_preset(repo);
      ASSERT_TRUE(by_repo.ok()) << repo;
      EXPECT_EQ(by_repo->name, repo);
    }
    // Its "repos" list, entry by entry as the build-time index holds it: an
    // "id", a "source", at most a quantization_config or an hf_quant_config.
    std::vector<std::string> ids;
    if (meta.contains("repos")) {
      for (const auto& entry : meta["repos"]) {
        ASSERT_TRUE(entry.is_object()) << f.path;
        for (const auto& [key, value] : entry.items()) {
          EXPECT_TRUE(key == "id" || key == "source" || key == "quantization_config" || key == "hf_quant_config")
              << f.path << ": unknown key " << key;
        }
        EXPECT_TRUE(entry.contains("source") && entry["source"].is_string()) << f.path << ": every entry cites";
        EXPECT_FALSE(entry.contains("quantization_config") && entry.contains("hf_quant_config")) << f.path;
        ids.push_back(entry["id"].get<std::string>());
        int found = 0;
        for (const EmbeddedRepo& r : embedded_repos()) {
          if (r.preset != name || r.id != ids.back()) continue;
          ++found;
          EXPECT_EQ(nlohmann::json::parse(r.entry), entry) << f.path;
        }
        EXPECT_EQ(found, 1) << f.path << ": " << ids.back();
      }
    }
    std::vector<std::string> listed;
    for (const EmbeddedRepo& r : embedded_repos()) {
      if (r.preset == name) listed.emplace_back(r.id);
    }
    EXPECT_EQ(listed, ids) << f.path;
  }
  EXPECT_GT(files, 0);
  EXPECT_EQ(static_cast<int>(embedded_presets().size()), files);
  EXPECT_EQ(static_cast<int>(presets().size()), files);
}

}  // namespace
}  // namespace modelcalc
