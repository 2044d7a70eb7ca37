//===- JSONImporterFuzzer.cpp - Fuzz the JSON spec importer --------------===//
//
// Any byte string given to --import-transformer-json is rejected with a
// diagnostic or imported as a verified module, which then goes through the
// pipeline. Seed corpus test/Fuzz/corpus/json, dictionary
// test/Fuzz/dict/json.dict (docs/Fuzzing.md).
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "Blueprint/Import/Import.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  blueprint::fuzz::runImporter(data, size, "fuzz.json",
                               blueprint::importTransformerJSON);
  return 0;
}
