/*===- blueprint-capi-test.c - Blueprint through the MLIR C API ----------===*\
|*                                                                            *|
|* What a compiler embedding Blueprint through C does: create a context,      *|
|* register the dialects through their handles, import a JSON spec, run       *|
|* --distribute-transformer and --plan-portable through mlirPassManager...    *|
|* and check the result. test/CAPI/capi.test compares the printed module     *|
|* with blueprint-opt's on the same spec.                                     *|
|*                                                                            *|
|*   blueprint-capi-test SPEC [PIPELINE]                                      *|
|*                                                                            *|
|* SPEC is a JSON spec, or a Megatron-LM argument list when its name ends in  *|
|* `.args`.                                                                   *|
|*                                                                            *|
|* Without PIPELINE the two passes are created by their C constructors        *|
|* (mlirCreateBlueprint...); with it, PIPELINE is parsed as a textual         *|
|* pipeline nested in builtin.module, which needs mlirRegisterBlueprintPasses.*|
|* Prints the dialect namespaces, the module's top-level ops, then the        *|
|* module; exits 1 on any failure, with the diagnostics on stderr.            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "Blueprint-c/Dialects.h"
#include "Blueprint-c/Passes.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"
#include "mlir-c/Support.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void printToStream(MlirStringRef text, void *stream) {
  fwrite(text.data, 1, text.length, (FILE *)stream);
}

static MlirLogicalResult printDiagnostic(MlirDiagnostic diagnostic,
                                         void *userData) {
  (void)userData;
  fputs("diagnostic at ", stderr);
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToStream,
                    stderr);
  fputs(": ", stderr);
  mlirDiagnosticPrint(diagnostic, printToStream, stderr);
  fputc('\n', stderr);
  return mlirLogicalResultSuccess();
}

/* The whole of `path` as a NUL-terminated string, or NULL. */
static char *readFile(const char *path, size_t *length) {
  FILE *file = fopen(path, "rb");
  if (!file)
    return NULL;
  char *text = NULL;
  if (fseek(file, 0, SEEK_END) == 0) {
    long size = ftell(file);
    if (size >= 0 && fseek(file, 0, SEEK_SET) == 0) {
      text = malloc((size_t)size + 1);
      if (text && fread(text, 1, (size_t)size, file) == (size_t)size) {
        text[size] = '\0';
        *length = (size_t)size;
      } else {
        free(text);
        text = NULL;
      }
    }
  }
  fclose(file);
  return text;
}

static void printNamespace(MlirDialectHandle handle) {
  MlirStringRef name = mlirDialectHandleGetNamespace(handle);
  printf("dialect %.*s\n", (int)name.length, name.data);
}

/* Builds the pipeline: from text when given, from the passes' C
   constructors otherwise. */
static int addPasses(MlirPassManager passManager, const char *pipeline) {
  if (!pipeline) {
    mlirPassManagerAddOwnedPass(passManager,
                                mlirCreateBlueprintDistributeTransformer());
    mlirPassManagerAddOwnedPass(passManager, mlirCreateBlueprintPlanPortable());
    return 1;
  }
  MlirOpPassManager modulePasses =
      mlirPassManagerGetAsOpPassManager(passManager);
  MlirLogicalResult parsed = mlirOpPassManagerAddPipeline(
      modulePasses, mlirStringRefCreateFromCString(pipeline), printToStream,
      stderr);
  if (mlirLogicalResultIsFailure(parsed)) {
    fprintf(stderr, "\nerror: cannot parse the pipeline '%s'\n", pipeline);
    return 0;
  }
  return 1;
}

static int run(MlirContext context, const char *specPath,
               const char *pipeline) {
  size_t length = 0;
  char *spec = readFile(specPath, &length);
  if (!spec) {
    fprintf(stderr, "error: cannot read '%s'\n", specPath);
    return 0;
  }
  size_t pathLength = strlen(specPath);
  int isMegatronArgs =
      pathLength >= 5 && strcmp(specPath + pathLength - 5, ".args") == 0;
  MlirModule module = (isMegatronArgs ? mlirBlueprintImportMegatronArgs
                                      : mlirBlueprintImportTransformerJSON)(
      context, mlirStringRefCreate(spec, length),
      mlirStringRefCreateFromCString(specPath));
  free(spec);
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "error: the import of '%s' failed\n", specPath);
    return 0;
  }

  MlirPassManager passManager = mlirPassManagerCreate(context);
  int succeeded = addPasses(passManager, pipeline);
  MlirOperation moduleOp = mlirModuleGetOperation(module);
  if (succeeded && mlirLogicalResultIsFailure(
                       mlirPassManagerRunOnOp(passManager, moduleOp))) {
    fprintf(stderr, "error: the pipeline failed\n");
    succeeded = 0;
  }
  mlirPassManagerDestroy(passManager);

  if (succeeded) {
    /* The result must be the plan: no ModelIR op may be left. */
    MlirBlock body = mlirModuleGetBody(module);
    for (MlirOperation op = mlirBlockGetFirstOperation(body);
         !mlirOperationIsNull(op); op = mlirOperationGetNextInBlock(op)) {
      MlirStringRef name = mlirIdentifierStr(mlirOperationGetName(op));
      printf("top-level %.*s\n", (int)name.length, name.data);
      if (name.length > 12 && strncmp(name.data, "transformer.", 12) == 0) {
        fprintf(stderr, "error: %.*s was not distributed\n", (int)name.length,
                name.data);
        succeeded = 0;
      }
    }
    if (!mlirOperationVerify(moduleOp)) {
      fprintf(stderr, "error: the result does not verify\n");
      succeeded = 0;
    }
    mlirOperationPrint(moduleOp, printToStream, stdout);
    fputc('\n', stdout);
  }
  mlirModuleDestroy(module);
  return succeeded;
}

int main(int argc, char **argv) {
  if (argc < 2 || argc > 3) {
    fprintf(stderr, "usage: %s SPEC [PIPELINE]\n", argv[0]);
    return 2;
  }
  MlirDialectHandle handles[] = {mlirGetDialectHandle__transformer__(),
                                 mlirGetDialectHandle__dist__(),
                                 mlirGetDialectHandle__pplan__()};
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  for (size_t i = 0; i < sizeof(handles) / sizeof(handles[0]); ++i) {
    printNamespace(handles[i]);
    mlirDialectHandleInsertDialect(handles[i], registry);
  }
  mlirRegisterBlueprintPasses();

  MlirContext context = mlirContextCreate();
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirContextAttachDiagnosticHandler(context, printDiagnostic, NULL, NULL);

  int succeeded = run(context, argv[1], argc == 3 ? argv[2] : NULL);
  mlirContextDestroy(context);
  return succeeded ? 0 : 1;
}
