/* A C program using Linea's C API: the header compiles as C, the passes
 * register, and the dialect handle exists. (The rest of MLIR's C API, e.g.
 * mlirDialectHandleRegisterDialect, is not in Debian's libMLIR.so.) */
#include "linea-c/Dialects.h"

#include <stdio.h>

int main(void) {
  lineaRegisterPasses();
  MlirDialectHandle handle = mlirGetDialectHandle__linea__();
  if (handle.ptr == NULL)
    return 1;
  printf("linea C API %s: dialect handle ok, passes registered\n",
         lineaGetVersion());
  return 0;
}
