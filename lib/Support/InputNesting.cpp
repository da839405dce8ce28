//===- InputNesting.cpp - The bracket depth qmat's tools parse ------------===//

#include "qmat/Support/InputNesting.h"

const char *mlir::qmat::findExcessiveNesting(llvm::StringRef text,
                                             unsigned limit) {
  unsigned depth = 0;
  const char *end = text.end();
  for (const char *p = text.begin(); p != end; ++p) {
    switch (*p) {
    case '"':
      // A string literal: backslash escapes its next character.
      for (++p; p != end && *p != '"'; ++p)
        if (*p == '\\' && p + 1 != end)
          ++p;
      if (p == end)
        return nullptr;
      break;
    case '/':
      if (p + 1 != end && p[1] == '/')
        while (p + 1 != end && p[1] != '\n')
          ++p;
      break;
    case '<':
      if (p + 1 != end && p[1] == '=')
        break;
      [[fallthrough]];
    case '{':
    case '[':
    case '(':
      if (++depth > limit)
        return p;
      break;
    case '>':
      if ((p != text.begin() && p[-1] == '-') || (p + 1 != end && p[1] == '='))
        break;
      [[fallthrough]];
    case '}':
    case ']':
    case ')':
      if (depth > 0)
        --depth;
      break;
    default:
      break;
    }
  }
  return nullptr;
}

std::string mlir::qmat::getExcessiveNestingMessage() {
  return "brackets ({, [, ( and <) nest deeper than " +
         std::to_string(kMaxInputNesting) +
         " levels here, more than qmat's tools parse (the parser recurses "
         "once per level)";
}
