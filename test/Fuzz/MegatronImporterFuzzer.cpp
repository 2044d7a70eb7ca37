//===- MegatronImporterFuzzer.cpp - Fuzz the Megatron-arguments importer -===//
//
// Any byte string given to --import-megatron-args is rejected with a
// diagnostic or imported as a verified module, which then goes through the
// pipeline. Seed corpus test/Fuzz/corpus/megatron, dictionary
// test/Fuzz/dict/megatron.dict (docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "Blueprint/Import/Import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  blueprint::fuzz::runImporter(data, size, "fuzz.args",
                               blueprint::importMegatronArgs);
  return 0;
}
