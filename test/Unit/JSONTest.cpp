//===- JSONTest.cpp - Every JSON input is read with bounded nesting -------===//
//
// llvm::json::parse recurses once per level of nesting and overflows the
// stack at about 100,000 levels. Every reader of a JSON input (specs,
// profiles, bindings, sweep inputs, reference files) goes through
// blueprint::parseJSON, which refuses a document nested deeper than 64
// levels before parsing it.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Support/JSON.h"
#include "Blueprint/Checkpoint/Checkpoint.h"
#include "Blueprint/Estimate/SystemProfile.h"
#include "Blueprint/Sweep/Sweep.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

using namespace blueprint;

namespace {

/// `depth` nested arrays around 1.
std::string nestedArrays(unsigned depth) {
  return std::string(depth, '[') + "1" + std::string(depth, ']');
}

/// `depth` nested objects {"a": ...} around 1.
std::string nestedObjects(unsigned depth) {
  std::string text;
  for (unsigned i = 0; i < depth; ++i)
    text += "{\"a\": ";
  return text + "1" + std::string(depth, '}');
}

std::string errorOf(llvm::Error error) {
  return llvm::toString(std::move(error));
}

const char kTooDeep[] = "invalid JSON: nesting deeper than 64 levels";

} // namespace

TEST(BoundedJSON, RefusesNestingBeyondTheBoundBeforeParsing) {
  EXPECT_TRUE(static_cast<bool>(parseJSON(nestedArrays(kMaxJSONNestingDepth))));
  EXPECT_TRUE(
      static_cast<bool>(parseJSON(nestedObjects(kMaxJSONNestingDepth))));
  for (const std::string &text :
       {nestedArrays(kMaxJSONNestingDepth + 1),
        nestedObjects(kMaxJSONNestingDepth + 1), nestedArrays(100000)}) {
    llvm::Expected<llvm::json::Value> parsed = parseJSON(text);
    ASSERT_FALSE(static_cast<bool>(parsed));
    std::string message = errorOf(parsed.takeError());
    EXPECT_EQ(message.find(kTooDeep), 0u) << message;
  }
  // Brackets inside strings are text, not nesting.
  std::string quoted = "[\"" + std::string(1000, '[') + "\\\"\"]";
  EXPECT_TRUE(static_cast<bool>(parseJSON(quoted)));
  // Malformed JSON is the parser's to report.
  EXPECT_EQ(errorOf(parseJSON("{\"a\": }").takeError()).find("invalid JSON: "),
            0u);
}

TEST(BoundedJSON, ListsWhereEveryMemberStarts) {
  std::vector<JSONMember> members;
  ASSERT_TRUE(static_cast<bool>(parseJSON(
      "{\"name\": \"x\",\n  \"model\": {\"hidden\": 64,\n\t\"heads\": 4},\n"
      "  \"list\": [{\"k\": 1}, {\"k\": 2}]}",
      &members)));
  std::vector<std::tuple<std::string, unsigned, unsigned, unsigned, bool>>
      found;
  for (const JSONMember &member : members)
    found.push_back({member.path, member.line, member.column, member.depth,
                     member.container});
  EXPECT_EQ(found, (decltype(found){{"$.name", 1, 2, 1, false},
                                    {"$.model", 2, 3, 1, true},
                                    {"$.model.hidden", 2, 13, 2, false},
                                    {"$.model.heads", 3, 2, 2, false},
                                    {"$.list", 4, 3, 1, true},
                                    {"$.list[0].k", 4, 13, 3, false},
                                    {"$.list[1].k", 4, 23, 3, false}}));
}

// Every JSON input of Blueprint is read through parseJSON.
TEST(BoundedJSON, EveryReaderIsBounded) {
  std::string deep = nestedArrays(100000);
  EXPECT_NE(
      errorOf(estimate::parseSystemProfile(deep).takeError()).find(kTooDeep),
      std::string::npos);
  EXPECT_NE(errorOf(estimate::parseNetworkTierBinding(deep).takeError())
                .find(kTooDeep),
            std::string::npos);
  std::string deepObject = nestedObjects(100000);
  EXPECT_NE(errorOf(sweep::Batch::parse(deepObject).takeError()).find(kTooDeep),
            std::string::npos);
  llvm::SmallString<128> reference;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("deep", "json", reference));
  {
    std::error_code error;
    llvm::raw_fd_ostream(reference, error) << deepObject;
    ASSERT_FALSE(error);
  }
  EXPECT_NE(errorOf(createBuiltinObserver("reference", reference).takeError())
                .find(kTooDeep),
            std::string::npos);
  (void)llvm::sys::fs::remove(reference);
}
