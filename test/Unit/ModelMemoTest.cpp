//===- ModelMemoTest.cpp - Derivations of one model, kept by key ----------===//
//
// ModelMemo (include/Blueprint/Workload/ModelMemo.h): one model's values by
// key, all forgotten when full or given another model, shareable between
// threads.
//
//===----------------------------------------------------------------------===//

#include "Blueprint/Workload/ModelMemo.h"

#include "SmallRuns.h"

#include "gtest/gtest.h"

#include <atomic>
#include <thread>
#include <vector>

using namespace blueprint;
using namespace blueprint::workload;

namespace {

using Memo = ModelMemo<int64_t, int64_t>;

ModelSpec otherModel(ModelSpec model) {
  model.blocks += 1;
  return model;
}

TEST(ModelMemo, KeepsOneModelsValuesByKey) {
  ModelSpec model =
      blueprint::test::smallRun(PipelineSchedule::OneFOneB, 1, 1).model;
  Memo memo(4);
  EXPECT_FALSE(memo.find(model, 1));
  memo.insert(model, 1, 10);
  memo.insert(model, 2, 20);
  EXPECT_EQ(memo.find(model, 1), 10);
  EXPECT_EQ(memo.find(model, 2), 20);
  EXPECT_FALSE(memo.find(model, 3));
  EXPECT_EQ(memo.shared(), 2u);
  // Another model has none of them, and keeping one of its values forgets
  // the first model's.
  ModelSpec other = otherModel(model);
  EXPECT_FALSE(memo.find(other, 1));
  memo.insert(other, 1, 11);
  EXPECT_EQ(memo.find(other, 1), 11);
  EXPECT_FALSE(memo.find(model, 1));
  EXPECT_FALSE(memo.find(model, 2));
  EXPECT_EQ(memo.shared(), 3u);
  // A key kept twice keeps its first value (both are one derivation).
  memo.insert(other, 1, 12);
  EXPECT_EQ(memo.find(other, 1), 11);
}

TEST(ModelMemo, ForgetsEverythingWhenFull) {
  ModelSpec model =
      blueprint::test::smallRun(PipelineSchedule::OneFOneB, 1, 1).model;
  Memo memo(3);
  for (int64_t key : {1, 2, 3})
    memo.insert(model, key, key * 10);
  for (int64_t key : {1, 2, 3})
    EXPECT_EQ(memo.find(model, key), key * 10);
  // Keeping a key it holds keeps the first value and forgets nothing.
  memo.insert(model, 2, 21);
  for (int64_t key : {1, 2, 3})
    EXPECT_EQ(memo.find(model, key), key * 10);
  memo.insert(model, 4, 40);
  for (int64_t key : {1, 2, 3})
    EXPECT_FALSE(memo.find(model, key)) << key;
  EXPECT_EQ(memo.find(model, 4), 40);
}

TEST(ModelMemo, ThreadsSharingOneMemoFindOnlyWhatWasKept) {
  // Two threads keep and look up overlapping keys of one model, through
  // many forgettings (capacity 8 of 64 keys, each asked four times in a
  // row by each thread): every value found is the one
  // kept for its key.
  ModelSpec model =
      blueprint::test::smallRun(PipelineSchedule::OneFOneB, 1, 1).model;
  Memo memo(8);
  std::atomic<size_t> wrong(0), found(0);
  auto work = [&](int64_t offset) {
    for (int64_t round = 0; round < 20000; ++round) {
      int64_t key = (round / 4 + offset) % 64;
      if (std::optional<int64_t> value = memo.find(model, key)) {
        ++found;
        wrong += *value != key * 3;
      } else {
        memo.insert(model, key, key * 3);
      }
    }
  };
  std::thread first(work, 0), second(work, 5);
  first.join();
  second.join();
  EXPECT_EQ(wrong.load(), 0u);
  EXPECT_GT(found.load(), 0u);
  EXPECT_EQ(memo.shared(), found.load());
}

} // namespace
