//===- Passes.cpp - Blueprint pass registration ---------------------------===//

#include "Blueprint/Transforms/Passes.h"
