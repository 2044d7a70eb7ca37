//===- ReferenceCases.cpp - The reference data the unit tests read --------===//

#include "ReferenceCases.h"

#include "llvm/Support/MemoryBuffer.h"

#include "gtest/gtest.h"

llvm::json::Array blueprint::test::loadReferenceCases(llvm::StringRef file) {
  std::string path = std::string(BLUEPRINT_REFERENCE_DIR) + "/" + file.str();
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    ADD_FAILURE() << "cannot read " << path;
    return {};
  }
  llvm::Expected<llvm::json::Value> parsed =
      llvm::json::parse((*buffer)->getBuffer());
  if (!parsed) {
    ADD_FAILURE() << path << ": " << llvm::toString(parsed.takeError());
    return {};
  }
  if (llvm::json::Array *cases = parsed->getAsArray())
    return std::move(*cases);
  ADD_FAILURE() << path << " is not a case list";
  return {};
}

int64_t blueprint::test::referenceInteger(const llvm::json::Object &object,
                                          llvm::StringRef key) {
  std::optional<int64_t> value = object.getInteger(key);
  EXPECT_TRUE(value.has_value()) << "missing integer " << key.str();
  return value.value_or(0);
}
