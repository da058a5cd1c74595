//===- Interface.cpp - the manifest, header and shim of a library ---------===//
//
// Everything linea-compile writes beside the shared library, made from the
// entry functions' signatures: NAME.json for loaders (the Python package
// reads it), NAME.h for C callers, and the C shim whose `linea_checked_F`
// checks each call's dtypes and sizes and turns a failed run-time check
// into an error return.
//
//===----------------------------------------------------------------------===//

#include "Interface.h"

#include "../common/CommandLine.h"
#include "linea/Dialect/LineaDialect.h"
#include "linea/Version.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mlir::linea::compile {

[[noreturn]] static void die(const llvm::Twine &message) {
  linea::tools::fail("linea-compile", message);
}

std::string typeString(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << type;
  return text;
}

/// The entry functions: those named, or every public function with a body.
SmallVector<func::FuncOp> findEntries(ModuleOp module,
                                      ArrayRef<std::string> names) {
  SmallVector<func::FuncOp> entries;
  for (const std::string &name : names) {
    auto func = module.lookupSymbol<func::FuncOp>(name);
    if (!func || func.isExternal())
      die("no function @" + name + " with a body in the module");
    entries.push_back(func);
  }
  if (names.empty())
    for (auto func : module.getOps<func::FuncOp>())
      if (func.isPublic() && !func.isExternal())
        entries.push_back(func);
  if (entries.empty())
    die("the module has no public function to export");
  return entries;
}


std::optional<int64_t> shardedDimIn(DictionaryAttr attrs) {
  if (auto dim = attrs ? attrs.getAs<IntegerAttr>(
                             linea::LineaDialect::kShardedDimAttrName)
                       : IntegerAttr())
    return dim.getInt();
  return std::nullopt;
}

std::string dtypeOf(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF16())
    return "f16";
  if (type.isBF16())
    return "bf16";
  if (type.isF64())
    return "f64";
  if (type.isIndex())
    return "index";
  if (auto integer = dyn_cast<IntegerType>(type))
    return "i" + std::to_string(integer.getWidth());
  return "";
}

ValueSpec describe(Type type, const Twine &what) {
  if (auto tensor = dyn_cast<RankedTensorType>(type)) {
    // Integer tensors are a model's token ids (an embedding's gather) or a
    // packed sequence's offsets (index: 64-bit on the host).
    std::string dtype = dtypeOf(tensor.getElementType());
    if (!llvm::is_contained({"f32", "f16", "bf16", "i32", "i64", "index"},
                            dtype))
      die(what + " has type " + typeString(type) +
          "; exported functions take f32, f16, bf16, i32, i64 or index "
          "tensors");
    return {"tensor", dtype, SmallVector<int64_t>(tensor.getShape())};
  }
  std::string dtype = dtypeOf(type);
  if (dtype != "index" && dtype != "i64" && dtype != "i32" && dtype != "f32")
    die(what + " has type " + typeString(type) +
        "; exported functions take tensors, index, i32, i64 or f32");
  return {"scalar", dtype, {}};
}


Signature signatureOf(func::FuncOp func) {
  Signature signature{func.getName().str(), {}, {}};
  FunctionType type = func.getFunctionType();
  for (auto [k, arg] : llvm::enumerate(type.getInputs())) {
    signature.args.push_back(
        describe(arg, "@" + func.getName() + " argument " + Twine(k)));
    signature.args.back().shardedDim = shardedDimIn(func.getArgAttrDict(k));
  }
  for (auto [k, result] : llvm::enumerate(type.getResults())) {
    ValueSpec value =
        describe(result, "@" + func.getName() + " result " + Twine(k));
    if (value.kind != "tensor")
      die("@" + func.getName() + " result " + Twine(k) +
          " is a scalar; exported functions return tensors");
    value.shardedDim = shardedDimIn(func.getResultAttrDict(k));
    signature.results.push_back(value);
  }
  return signature;
}

llvm::json::Value toJSON(const ValueSpec &value) {
  llvm::json::Array shape;
  for (int64_t size : value.shape)
    shape.push_back(ShapedType::isDynamic(size) ? llvm::json::Value("?")
                                                : llvm::json::Value(size));
  return llvm::json::Object{
      {"kind", value.kind},
      {"dtype", value.dtype},
      {"shape", std::move(shape)},
      {"sharded_dim", value.shardedDim ? llvm::json::Value(*value.shardedDim)
                                       : llvm::json::Value(nullptr)}};
}

void writeManifest(StringRef path, ArrayRef<Signature> signatures,
                   StringRef target, std::optional<StringRef> chip) {
  llvm::json::Array functions;
  for (const Signature &signature : signatures) {
    llvm::json::Array args, results;
    for (const ValueSpec &v : signature.args)
      args.push_back(toJSON(v));
    for (const ValueSpec &v : signature.results)
      results.push_back(toJSON(v));
    functions.push_back(llvm::json::Object{
        {"name", signature.name},
        {"symbol", "_mlir_ciface_" + signature.name},
        {"args", std::move(args)},
        {"results", std::move(results)}});
  }
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  os << llvm::formatv("{0:2}",
                      llvm::json::Value(llvm::json::Object{
                          {"linea_version", LINEA_VERSION},
                          {"abi", "mlir_ciface"},
                          {"target", target},
                          {"chip", chip ? llvm::json::Value(*chip)
                                        : llvm::json::Value(nullptr)},
                          {"functions", std::move(functions)}}))
     << "\n";
}

/// `f32[2x?x8]`, `index`: a value as the header's comments and the shim's
/// messages show it.
std::string describe(const ValueSpec &v) {
  if (v.kind != "tensor")
    return v.dtype;
  SmallVector<std::string> dims;
  for (int64_t size : v.shape)
    dims.push_back(ShapedType::isDynamic(size) ? "?" : std::to_string(size));
  return v.dtype + "[" + llvm::join(dims, "x") + "]";
}

std::string cType(StringRef dtype) {
  if (dtype == "f32")
    return "float";
  if (dtype == "f16" || dtype == "bf16")
    return "uint16_t";
  if (dtype == "i32")
    return "int32_t";
  return "int64_t";
}

void writeHeader(StringRef path, StringRef guard, StringRef library,
                 ArrayRef<Signature> signatures) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec)
    die("cannot write '" + path + "': " + ec.message());
  os << "// Generated by linea-compile (Linea " << LINEA_VERSION
     << "): the C interface of " << library << ".\n"
     << "// Tensors are strided memref descriptors; results come back through "
        "the\n// first pointer, in buffers the caller frees with "
        "linea_free_result(allocated).\n"
     << "// linea_checked_F checks every argument against the signature "
        "(sizes,\n// row-major contiguous strides, pointers), runs, and "
        "returns 0, or 1 after a\n// failed check (the message: "
        "linea_last_error()). Calling _mlir_ciface_F\n// directly checks "
        "nothing of the arguments, and a failed run-time check\n// prints "
        "its message and aborts.\n"
     << "#ifndef " << guard << "\n#define " << guard
     << "\n\n#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n";
  std::set<std::pair<std::string, int64_t>> declared;
  auto descriptor = [&](const ValueSpec &v) {
    std::string name =
        "LineaMemRef_" + v.dtype + "_" + std::to_string(v.shape.size());
    if (declared.insert({v.dtype, v.shape.size()}).second)
      os << "\ntypedef struct {\n  " << cType(v.dtype) << " *allocated;\n  "
         << cType(v.dtype) << " *aligned;\n  int64_t offset;\n  int64_t sizes["
         << v.shape.size() << "];\n  int64_t strides[" << v.shape.size()
         << "];\n} " << name << ";\n";
    return name;
  };
  for (const Signature &signature : signatures) {
    std::vector<std::string> resultTypes;
    for (const ValueSpec &v : signature.results)
      resultTypes.push_back(descriptor(v));
    for (const ValueSpec &v : signature.args)
      if (v.kind == "tensor")
        descriptor(v);
    std::string resultType = resultTypes.empty() ? "" : resultTypes.front();
    if (resultTypes.size() > 1) {
      resultType = signature.name + "_results";
      os << "\ntypedef struct {\n";
      for (auto [k, type] : llvm::enumerate(resultTypes))
        os << "  " << type << " result" << k << ";\n";
      os << "} " << resultType << ";\n";
    }
    std::vector<std::string> params;
    if (!resultType.empty())
      params.push_back(resultType + " *results");
    for (auto [k, v] : llvm::enumerate(signature.args))
      params.push_back(v.kind == "tensor"
                           ? descriptor(v) + " *arg" + std::to_string(k)
                           : cType(v.dtype) + " arg" + std::to_string(k));
    std::string list = llvm::join(params, ", ");
    SmallVector<std::string> args, results;
    for (auto [k, v] : llvm::enumerate(signature.args))
      args.push_back("arg" + std::to_string(k) + ": " + describe(v));
    for (const ValueSpec &v : signature.results)
      results.push_back(describe(v));
    os << "\n// " << signature.name << "(" << llvm::join(args, ", ") << ") -> "
       << (results.size() == 1 ? results.front()
                               : "(" + llvm::join(results, ", ") + ")")
       << "\n// (row-major contiguous tensors; `?` a size given at the call)";
    os << "\nvoid _mlir_ciface_" << signature.name << "(" << list << ");\n"
       << "int linea_checked_" << signature.name << "(" << list << ");\n";
  }
  os << "\nconst char *linea_last_error(void);\n"
     << "void linea_free_result(void *allocated);\n"
     << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif // " << guard << "\n";
}

/// With `cuda`, a driver failure during the call (kept by the runtime
/// library) is an error return too, and results are freed by the runtime.
std::string shimSource(ArrayRef<Signature> signatures, StringRef header,
                       bool cuda) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#include <setjmp.h>\n#include <stdio.h>\n#include <stdlib.h>\n"
     << "#include <string.h>\n#include \"" << header << "\"\n\n";
  if (cuda)
    os << "const char *linea_cuda_take_error(void);\n"
       << "void mgpuMemFree(void *pointer, void *stream);\n"
       << "void linea_free_result(void *allocated) { mgpuMemFree(allocated, "
          "0); }\n\n";
  else
    os << "void linea_free_result(void *allocated) { free(allocated); }\n\n";
  os << "static _Thread_local jmp_buf linea_checked_call;\n"
     << "static _Thread_local int linea_in_checked_call;\n"
     << "static _Thread_local char linea_error[1024];\n\n"
     << "const char *linea_last_error(void) { return linea_error; }\n\n"
     << "void linea_check_failed(const char *message) {\n"
     << "  if (!linea_in_checked_call) {\n"
     << "    fprintf(stderr, \"linea: run-time check failed: %s\\n\", message);\n"
     << "    abort();\n  }\n"
     << "  snprintf(linea_error, sizeof linea_error, \"run-time check failed: "
        "%s\", message);\n"
     << "  longjmp(linea_checked_call, 1);\n}\n";
  // What the compiled code assumes of each tensor, checked before it runs:
  // a descriptor that disagrees would be read out of bounds.
  os << R"C(
static int linea_check_argument(const char *function, int index,
                                const char *type, int rank,
                                const int64_t *expected, const void *descriptor,
                                const void *data, int64_t offset,
                                const int64_t *sizes, const int64_t *strides) {
#define LINEA_FAIL(...)                                                        \
  do {                                                                         \
    int n = snprintf(linea_error, sizeof linea_error,                         \
                     "%s: argument %d (%s) ", function, index, type);          \
    snprintf(linea_error + n, sizeof linea_error - n, __VA_ARGS__);            \
    return 1;                                                                  \
  } while (0)
  if (!descriptor)
    LINEA_FAIL("is a null pointer");
  int empty = 0;
  for (int d = 0; d < rank; ++d) {
    if (sizes[d] < 0)
      LINEA_FAIL("has size %lld at dim %d", (long long)sizes[d], d);
    if (expected[d] >= 0 && sizes[d] != expected[d])
      LINEA_FAIL("has size %lld at dim %d, expected %lld", (long long)sizes[d],
                 d, (long long)expected[d]);
    empty |= sizes[d] == 0;
  }
  int64_t stride = 1;
  for (int d = rank - 1; d >= 0 && !empty; --d) {
    if (sizes[d] > 1 && strides[d] != stride)
      LINEA_FAIL("has stride %lld at dim %d, expected %lld (row-major "
                 "contiguous)", (long long)strides[d], d, (long long)stride);
    stride *= sizes[d];
  }
  if (!empty && !data)
    LINEA_FAIL("has no data (a null aligned pointer)");
  if (offset < 0)
    LINEA_FAIL("has offset %lld", (long long)offset);
  return 0;
#undef LINEA_FAIL
}
)C";
  for (const Signature &signature : signatures) {
    SmallVector<std::string> params, names;
    if (!signature.results.empty()) {
      params.push_back(signature.results.size() > 1
                           ? signature.name + "_results *results"
                           : "LineaMemRef_" + signature.results[0].dtype + "_" +
                                 std::to_string(signature.results[0].shape.size()) +
                                 " *results");
      names.push_back("results");
    }
    for (auto [k, v] : llvm::enumerate(signature.args)) {
      std::string name = "arg" + std::to_string(k);
      params.push_back(v.kind == "tensor"
                           ? "LineaMemRef_" + v.dtype + "_" +
                                 std::to_string(v.shape.size()) + " *" + name
                           : cType(v.dtype) + " " + name);
      names.push_back(name);
    }
    os << "\nint linea_checked_" << signature.name << "("
       << llvm::join(params, ", ") << ") {\n"
       << "  linea_error[0] = 0;\n";
    std::string function = "linea_checked_" + signature.name;
    if (!signature.results.empty())
      os << "  if (!results) {\n    snprintf(linea_error, sizeof linea_error, "
         << "\"" << function << ": the results pointer is null\");\n"
         << "    return 1;\n  }\n";
    for (auto [k, v] : llvm::enumerate(signature.args)) {
      if (v.kind != "tensor")
        continue;
      std::string name = "arg" + std::to_string(k);
      SmallVector<std::string> sizes;
      for (int64_t size : v.shape)
        sizes.push_back(std::to_string(ShapedType::isDynamic(size) ? -1 : size));
      // A rank-0 tensor has no sizes to check, only its pointers.
      os << "  static const int64_t " << name << "_shape[] = {"
         << (sizes.empty() ? "0" : llvm::join(sizes, ", ")) << "};\n"
         << "  if (linea_check_argument(\"" << function << "\", " << k
         << ", \"" << describe(v) << "\", " << v.shape.size() << ", " << name
         << "_shape, " << name << ", " << name << " ? " << name
         << "->aligned : 0, " << name << " ? " << name << "->offset : 0, "
         << name << " ? " << name << "->sizes : 0, " << name << " ? " << name
         << "->strides : 0))\n    return 1;\n";
    }
    os << "  if (setjmp(linea_checked_call)) {\n"
       << "    linea_in_checked_call = 0;\n    return 1;\n  }\n"
       << "  linea_in_checked_call = 1;\n";
    if (cuda)
      os << "  linea_cuda_take_error();\n";
    os << "  _mlir_ciface_" << signature.name << "(" << llvm::join(names, ", ")
       << ");\n  linea_in_checked_call = 0;\n";
    if (cuda)
      os << "  const char *failure = linea_cuda_take_error();\n"
         << "  if (failure[0]) {\n    snprintf(linea_error, sizeof "
            "linea_error, \"CUDA: %s\", failure);\n    return 1;\n  }\n";
    os << "  return 0;\n}\n";
  }
  return text;
}

} // namespace mlir::linea::compile
