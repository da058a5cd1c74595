//===- OptionCheck.cpp - pass options checked before MLIR parses them -----===//
//
// The option names of Linea's pipelines come from their option structs
// (recorded where each pipeline is registered), and
// those of Linea's passes from the pass itself (printed as a pipeline, every
// option shows). Upstream passes' options are left to MLIR: a list option
// with no value does not print, so their names are not known for sure here.
//
//===----------------------------------------------------------------------===//

#include "linea/Pipelines/OptionCheck.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace mlir::linea;

namespace {

/// The position just past the bracket that closes the one at `open`
/// (`{`/`}` or `(`/`)`, quotes respected), or npos.
size_t pastClosing(StringRef text, size_t open) {
  SmallVector<char> closers;
  for (size_t i = open; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"' || c == '\'') {
      size_t end = text.find(c, i + 1);
      if (end == StringRef::npos)
        return StringRef::npos;
      i = end;
    } else if (c == '{' || c == '(') {
      closers.push_back(c == '{' ? '}' : ')');
    } else if (c == '}' || c == ')') {
      if (closers.empty() || closers.back() != c)
        return StringRef::npos;
      closers.pop_back();
      if (closers.empty())
        return i + 1;
    }
  }
  return StringRef::npos;
}

/// The keys of `key=value key2 key3={nested value}`.
SmallVector<StringRef> optionKeys(StringRef options) {
  SmallVector<StringRef> keys;
  size_t i = 0;
  while (i < options.size()) {
    if (options[i] == ' ') {
      ++i;
      continue;
    }
    size_t keyEnd = options.find_first_of("= ", i);
    keys.push_back(options.slice(i, keyEnd).trim());
    if (keyEnd == StringRef::npos || options[keyEnd] == ' ') {
      i = keyEnd;
      continue;
    }
    i = keyEnd + 1;
    char first = i < options.size() ? options[i] : ' ';
    if (first == '{') {
      i = pastClosing(options, i);
    } else if (first == '"' || first == '\'') {
      size_t close = options.find(first, i + 1);
      i = close == StringRef::npos ? close : close + 1;
    } else {
      i = options.find(' ', i);
    }
  }
  return keys;
}

/// The option names of Linea's pipelines, as recordPipelineOptions records
/// them where each is registered.
llvm::StringMap<SmallVector<std::string>> &pipelineOptions() {
  static llvm::StringMap<SmallVector<std::string>> options;
  return options;
}

/// The option names in `printed`, a pass or an option struct printed as
/// text: `name{a=1 b=x}` or `{a=1 b=x}`.
SmallVector<std::string> printedOptionNames(StringRef printed) {
  SmallVector<std::string> names;
  size_t open = printed.find('{');
  if (open != StringRef::npos)
    for (StringRef key : optionKeys(printed.drop_front(open + 1).drop_back()))
      names.push_back(key.str());
  return names;
}

/// Every option of one of Linea's pipelines or passes; nothing for any
/// other.
std::optional<SmallVector<std::string>> knownOptions(StringRef name) {
  auto recorded = pipelineOptions().find(name);
  if (recorded != pipelineOptions().end())
    return recorded->second;
  const PassInfo *pass = PassInfo::lookup(name);
  if (!pass || !name.contains("linea"))
    return std::nullopt;
  OpPassManager pm;
  if (failed(pass->addToPipeline(pm, "", [](const Twine &) {
        return failure();
      })) ||
      pm.size() != 1)
    return std::nullopt;
  std::string printed;
  llvm::raw_string_ostream os(printed);
  pm.begin()->printAsTextualPipeline(os);
  return printedOptionNames(printed);
}

/// The candidate nearest to `word` if it is near enough to be a typo
/// (`_` for `-` counts as nothing).
std::optional<std::string> nearest(StringRef word,
                                   ArrayRef<std::string> candidates) {
  std::string dashed = word.lower();
  llvm::replace(dashed, '_', '-');
  std::optional<std::string> best;
  unsigned bestDistance = std::max<unsigned>(2, word.size() / 3) + 1;
  for (const std::string &candidate : candidates) {
    unsigned distance = StringRef(dashed).edit_distance(candidate);
    if (distance < bestDistance) {
      bestDistance = distance;
      best = candidate;
    }
  }
  return best;
}

std::optional<std::string> unknownOption(StringRef name, StringRef key,
                                         SmallVector<std::string> valid) {
  llvm::sort(valid);
  std::string message = "'" + name.str() + "' has no option '" + key.str() + "'";
  if (std::optional<std::string> guess = nearest(key, valid))
    message += "; did you mean '" + *guess + "'?";
  if (valid.empty())
    return message + " (it takes none)";
  return message + " (its options: " + llvm::join(valid, ", ") + ")";
}

std::optional<std::string> diagnoseElements(StringRef text);

/// One `name{options}` or `anchor(pipeline)` of a pipeline.
std::optional<std::string> diagnoseElement(StringRef element) {
  element = element.trim();
  size_t bracket = element.find_first_of("{(");
  StringRef name = element.take_front(bracket).trim();
  if (bracket == StringRef::npos)
    return diagnosePassOptions(name, "");
  size_t end = pastClosing(element, bracket);
  if (end == StringRef::npos)
    return std::nullopt; // MLIR's parser says where the bracket is missing
  StringRef inside = element.slice(bracket + 1, end - 1);
  if (element[bracket] == '(')
    return diagnoseElements(inside);
  return diagnosePassOptions(name, inside);
}

/// A comma-separated list of elements.
std::optional<std::string> diagnoseElements(StringRef text) {
  size_t start = 0;
  for (size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && (text[i] == '{' || text[i] == '(')) {
      size_t end = pastClosing(text, i);
      if (end == StringRef::npos)
        return std::nullopt;
      i = end - 1;
      continue;
    }
    if (i < text.size() && text[i] != ',')
      continue;
    StringRef element = text.slice(start, i);
    if (!element.trim().empty())
      if (std::optional<std::string> problem = diagnoseElement(element))
        return problem;
    start = i + 1;
  }
  return std::nullopt;
}

} // namespace

void mlir::linea::recordPipelineOptions(
    StringRef name, const mlir::detail::PassOptions &options) {
  std::string printed;
  llvm::raw_string_ostream os(printed);
  options.print(os);
  pipelineOptions()[name] = printedOptionNames(printed);
}

std::optional<std::string> mlir::linea::diagnosePassOptions(StringRef name,
                                                            StringRef options) {
  if (!PassInfo::lookup(name) && !PassPipelineInfo::lookup(name)) {
    std::string message =
        "'" + name.str() + "' is not a registered pass or pipeline";
    std::string dashed = name.str();
    llvm::replace(dashed, '_', '-');
    for (std::string guess : {dashed, "linea-" + dashed})
      if (guess != name && (PassInfo::lookup(guess) ||
                            PassPipelineInfo::lookup(guess)))
        return message + "; did you mean '" + guess + "'?";
    return message + " (linea-opt --help lists them)";
  }
  std::optional<SmallVector<std::string>> valid = knownOptions(name);
  if (!valid)
    return std::nullopt;
  for (StringRef key : optionKeys(options))
    if (!llvm::is_contained(*valid, key))
      return unknownOption(name, key, *valid);
  return std::nullopt;
}

std::optional<std::string> mlir::linea::diagnosePipeline(StringRef pipeline) {
  return diagnoseElements(pipeline);
}
