//===- Npy.cpp - reading and writing NumPy .npy files ---------------------===//
//
// The format: the magic "\x93NUMPY", a major and minor version byte, the
// header length (2 bytes in version 1, 4 bytes in versions 2 and 3), a
// Python dict literal with 'descr', 'fortran_order' and 'shape', then data.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

using namespace mlir::linea;
using llvm::StringRef;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string npy::formatShape(llvm::ArrayRef<int64_t> shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    text += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    text += ",";
  return text + ")";
}

/// The text after `'key':` in the header dict, up to the next top-level
/// comma or the closing brace.
static std::optional<StringRef> dictValue(StringRef header, StringRef key) {
  size_t at = header.find(("'" + key + "'").str());
  if (at == StringRef::npos)
    return std::nullopt;
  StringRef rest = header.drop_front(at + key.size() + 2).ltrim();
  if (!rest.consume_front(":"))
    return std::nullopt;
  rest = rest.ltrim();
  if (rest.starts_with("(")) {
    size_t close = rest.find(')');
    if (close == StringRef::npos)
      return std::nullopt;
    return rest.take_front(close + 1);
  }
  return rest.take_until([](char c) { return c == ',' || c == '}'; }).rtrim();
}

static llvm::Expected<llvm::SmallVector<int64_t>> parseShape(StringRef text) {
  llvm::SmallVector<int64_t> shape;
  if (!text.consume_front("(") || !text.consume_back(")"))
    return fail("bad header: 'shape' is not a tuple");
  llvm::SmallVector<StringRef> parts;
  text.split(parts, ',');
  for (StringRef part : parts) {
    part = part.trim();
    if (part.empty())
      continue;
    int64_t size;
    if (part.getAsInteger(10, size) || size < 0)
      return fail("bad header: shape entry '" + part + "' is not a size");
    shape.push_back(size);
  }
  return shape;
}

llvm::Expected<npy::Array> npy::read(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot open: " + buffer.getError().message());
  StringRef bytes = (*buffer)->getBuffer();
  if (!bytes.starts_with("\x93NUMPY") || bytes.size() < 10)
    return fail("not a .npy file (bad magic)");
  uint8_t major = bytes[6];
  size_t lengthBytes = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    return fail("unsupported .npy version " + llvm::Twine(int(major)));
  if (bytes.size() < 8 + lengthBytes)
    return fail("truncated header");
  size_t headerLen = 0;
  for (size_t i = 0; i < lengthBytes; ++i)
    headerLen |= size_t(uint8_t(bytes[8 + i])) << (8 * i);
  size_t dataStart = 8 + lengthBytes + headerLen;
  if (bytes.size() < dataStart)
    return fail("truncated header");
  StringRef header = bytes.slice(8 + lengthBytes, dataStart);

  std::optional<StringRef> descr = dictValue(header, "descr");
  std::optional<StringRef> fortran = dictValue(header, "fortran_order");
  std::optional<StringRef> shapeText = dictValue(header, "shape");
  if (!descr || !fortran || !shapeText)
    return fail("bad header: expected 'descr', 'fortran_order' and 'shape'");
  if (*fortran != "False")
    return fail("Fortran-order array; save a C-contiguous array "
                "(np.ascontiguousarray)");
  StringRef dtype = descr->trim("'\"");
  size_t itemSize;
  bool integer = dtype == "<i4" || dtype == "<i8";
  if (dtype == "<f2")
    itemSize = 2;
  else if (dtype == "<f4" || dtype == "<i4")
    itemSize = 4;
  else if (dtype == "<f8" || dtype == "<i8")
    itemSize = 8;
  else
    return fail("unsupported dtype '" + dtype +
                "' (expected float16 '<f2', float32 '<f4', float64 '<f8', "
                "int32 '<i4' or int64 '<i8')");
  auto shape = parseShape(*shapeText);
  if (!shape)
    return shape.takeError();

  Array array;
  array.shape = std::move(*shape);
  size_t count = 1;
  for (int64_t size : array.shape)
    count *= size;
  size_t available = bytes.size() - dataStart;
  if (available < count * itemSize)
    return fail("truncated data: shape " + formatShape(array.shape) + " needs " +
                llvm::Twine(count * itemSize) + " bytes, the file has " +
                llvm::Twine(available));
  const char *data = bytes.data() + dataStart;
  if (integer) {
    array.isInteger = true;
    array.integers.resize(count);
    for (size_t i = 0; i < count; ++i) {
      if (itemSize == 4) {
        int32_t value;
        std::memcpy(&value, data + 4 * i, 4);
        array.integers[i] = value;
      } else {
        std::memcpy(&array.integers[i], data + 8 * i, 8);
      }
    }
    return array;
  }
  if (itemSize == 2) {
    array.isHalf = true;
    array.halves.resize(count);
    std::memcpy(array.halves.data(), data, count * 2);
    return array;
  }
  array.data.resize(count);
  if (itemSize == 4) {
    std::memcpy(array.data.data(), data, count * 4);
  } else {
    array.convertedFromF64 = true;
    for (size_t i = 0; i < count; ++i) {
      double value;
      std::memcpy(&value, data + 8 * i, 8);
      array.data[i] = static_cast<float>(value);
    }
  }
  return array;
}

/// A version 1.0 .npy of `descr` elements, `bytes` of them in all.
static llvm::Error writeArray(StringRef path, StringRef descr,
                              llvm::ArrayRef<int64_t> shape, const void *bytes,
                              size_t size) {
  std::string header = ("{'descr': '" + descr +
                        "', 'fortran_order': False, 'shape': " +
                        npy::formatShape(shape) + ", }")
                           .str();
  // Pad so that the data starts on a 64-byte boundary, newline-terminated.
  size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';

  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return fail("cannot write '" + path + "': " + ec.message());
  out << "\x93NUMPY" << char(1) << char(0);
  out << char(header.size() & 0xff) << char((header.size() >> 8) & 0xff);
  out << header;
  out.write(static_cast<const char *>(bytes), size);
  return llvm::Error::success();
}

llvm::Error npy::write(StringRef path, llvm::ArrayRef<int64_t> shape,
                       llvm::ArrayRef<float> data) {
  return writeArray(path, "<f4", shape, data.data(), data.size() * 4);
}

llvm::Error npy::writeHalf(StringRef path, llvm::ArrayRef<int64_t> shape,
                           llvm::ArrayRef<uint16_t> bits) {
  return writeArray(path, "<f2", shape, bits.data(), bits.size() * 2);
}
