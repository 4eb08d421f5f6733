// docs/cli.md's flag tables are generated from the request tables: each
// block between <!-- flags:COMMAND --> and <!-- /flags:COMMAND --> must equal
// markdown_flag_table of that command's table. MODELCALC_UPDATE_DOCS=1
// rewrites the blocks in the source tree (then review the diff).
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "modelcalc/app/requests.h"
#include "request_flags.h"
#include "test_paths.h"  // MODELCALC_SOURCE_DIR

namespace modelcalc {
namespace {

std::string read(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(DocsTables, CliMdFlagTablesAreTheRequestTables) {
  const std::string path = std::string(MODELCALC_SOURCE_DIR) + "/docs/cli.md";
  std::string doc = read(path);
  ASSERT_FALSE(doc.empty()) << path;
  const bool update = std::getenv("MODELCALC_UPDATE_DOCS") != nullptr;
  for (const app::Table* t : app::all_tables()) {
    const std::string open = "<!-- flags:" + std::string(t->command) + " -->\n";
    const std::string close = "<!-- /flags:" + std::string(t->command) + " -->";
    const size_t a = doc.find(open), b = doc.find(close);
    ASSERT_NE(a, std::string::npos) << "docs/cli.md lacks " << open;
    ASSERT_NE(b, std::string::npos) << "docs/cli.md lacks " << close;
    const size_t start = a + open.size();
    const std::string want = markdown_flag_table(*t);
    if (update) {
      doc.replace(start, b - start, want);
    } else {
      EXPECT_EQ(doc.substr(start, b - start), want)
          << t->command << "'s flags changed: run MODELCALC_UPDATE_DOCS=1 build/ci/modelcalc_tests "
                           "--gtest_filter=DocsTables.* and review docs/cli.md";
    }
  }
  if (update) std::ofstream(path) << doc;
}

}  // namespace
}  // namespace modelcalc
