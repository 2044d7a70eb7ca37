//===- Primitives.cpp - The primitive ids of the work algebra -------------===//

#include "Blueprint/Workload/Primitives.h"

#include "llvm/ADT/STLExtras.h"

using namespace blueprint::workload;

llvm::ArrayRef<llvm::StringLiteral> primitive::all() {
#define BLUEPRINT_WORKLOAD_PRIMITIVE_ID(constant, id) constant,
  static constexpr llvm::StringLiteral ids[] = {
      BLUEPRINT_WORKLOAD_PRIMITIVES(BLUEPRINT_WORKLOAD_PRIMITIVE_ID)};
#undef BLUEPRINT_WORKLOAD_PRIMITIVE_ID
  return ids;
}

bool primitive::isAttentionCore(llvm::StringRef id) {
  return llvm::is_contained(kAttentionCore, id);
}
