//===- ChunkSize.h - the chunk size of a chunked form ----------*- C++ -*-===//
//
// The sequential chunked form and the chunk-parallel form take their chunk
// size from one rule, here.
//
//===----------------------------------------------------------------------===//

#ifndef LINEA_FORMS_CHUNKSIZE_H
#define LINEA_FORMS_CHUNKSIZE_H

#include "linea/Dialect/LineaOps.h"
#include "linea/Forms/Passes.h"

namespace mlir::linea {

/// The chunk size of a chunked op that has neither a form nor an option.
constexpr int64_t kDefaultChunkSize = 64;

/// The chunk size for `op`: its chosen form's (`#linea.form<chunked, C>`,
/// `#linea.form<chunk_parallel, C>`), else the pass's `chunk-size` option
/// where positive, else kDefaultChunkSize.
inline int64_t chunkSizeFor(FormOpInterface op, int64_t option) {
  if (FormAttr form = op.getFormAttr())
    return form.getChunkSize();
  return option > 0 ? option : kDefaultChunkSize;
}

} // namespace mlir::linea

#endif // LINEA_FORMS_CHUNKSIZE_H
