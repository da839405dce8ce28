//===- PtxMerge.cpp - Join PTX modules compiled apart ---------------------===//

#include "PtxMerge.h"

#include <algorithm>
#include <cctype>
#include <map>

using namespace mlir::qmat;

namespace {

/// A module-scope statement: a declaration (ends in ';') or a function
/// (ends with its body's '}').
struct Statement {
  std::string text;
  std::string symbol;
  bool function = false;
};

bool startsWith(const std::string &s, size_t at, const char *prefix) {
  return s.compare(at, std::char_traits<char>::length(prefix), prefix) == 0;
}

std::string trim(const std::string &s) {
  size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

/// Where the line holding `at` ends: its '\n', or the end of `s`.
size_t lineEnd(const std::string &s, size_t at) {
  return std::min(s.find('\n', at), s.size());
}

bool isIdentifierStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '%';
}

bool isIdentifierChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$';
}

/// The symbol a statement declares: the last identifier before its '=',
/// ';' or body, outside parentheses and brackets (`.visible .entry f(`,
/// `.func (.param .b32 r) g(`, `.extern .shared .b8 s[];`).
std::string getSymbol(const std::string &text) {
  std::string last;
  int nesting = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '(' || c == '[')
      ++nesting;
    else if (c == ')' || c == ']')
      --nesting;
    else if (nesting == 0 && (c == '=' || c == ';' || c == '{'))
      break;
    else if (nesting == 0 && c == '/' && i + 1 < text.size() &&
             text[i + 1] == '/')
      i = lineEnd(text, i);
    else if (nesting == 0 && isIdentifierStart(c) &&
             (i == 0 ||
              (!isIdentifierChar(text[i - 1]) && text[i - 1] != '.'))) {
      size_t end = i + 1;
      while (end < text.size() && isIdentifierChar(text[end]))
        ++end;
      last = text.substr(i, end - i);
      i = end - 1;
    }
  }
  return last;
}

/// Splits `ptx` into its header directives and module-scope statements.
bool parseModule(const std::string &ptx, std::string &header,
                 std::vector<Statement> &statements, std::string &error) {
  size_t at = 0;
  // The header: blank lines, comments and the three module directives.
  while (at < ptx.size()) {
    size_t end = lineEnd(ptx, at);
    std::string line = trim(ptx.substr(at, end - at));
    if (startsWith(line, 0, ".version") || startsWith(line, 0, ".target") ||
        startsWith(line, 0, ".address_size"))
      header += line + "\n";
    else if (!line.empty() && !startsWith(line, 0, "//"))
      break;
    at = end + 1;
  }
  if (header.empty()) {
    error = "a PTX module has no .version/.target/.address_size header";
    return false;
  }
  std::string current;
  int braces = 0, parens = 0;
  // After a module-scope '=', braces hold an initializer, not a body.
  bool initializer = false;
  for (; at < ptx.size(); ++at) {
    char c = ptx[at];
    // A comment outside every statement is dropped; inside one it stays.
    if (c == '/' && at + 1 < ptx.size() && ptx[at + 1] == '/') {
      size_t end = lineEnd(ptx, at);
      if (!trim(current).empty())
        current += ptx.substr(at, end - at);
      at = end - 1;
      continue;
    }
    current += c;
    if (c == '(')
      ++parens;
    else if (c == ')')
      --parens;
    else if (c == '{')
      ++braces;
    else if (c == '}')
      --braces;
    else if (c == '=' && braces == 0 && parens == 0)
      initializer = true;
    if (braces < 0 || parens < 0) {
      error = "unbalanced braces or parentheses in a PTX module";
      return false;
    }
    bool declarationEnds = c == ';' && braces == 0 && parens == 0;
    bool functionEnds = c == '}' && braces == 0 && !initializer;
    if (!declarationEnds && !functionEnds)
      continue;
    Statement statement;
    statement.text = trim(current);
    statement.function = functionEnds;
    statement.symbol = getSymbol(statement.text);
    current.clear();
    initializer = false;
    if (statement.symbol.empty()) {
      error = "a PTX statement names no symbol: " +
              statement.text.substr(0, statement.text.find('\n'));
      return false;
    }
    statements.push_back(std::move(statement));
  }
  if (!trim(current).empty()) {
    error = "a PTX module ends inside a statement";
    return false;
  }
  return true;
}

} // namespace

std::string mlir::qmat::mergePtxModules(const std::vector<std::string> &modules,
                                        std::string &error) {
  if (modules.empty()) {
    error = "no PTX module to merge";
    return {};
  }
  std::string header;
  std::vector<const Statement *> declarations, functions;
  std::vector<std::vector<Statement>> parsed(modules.size());
  // A function's prototype (a declaration) and its body are two statements
  // of one symbol.
  std::map<std::pair<std::string, bool>, const Statement *> bySymbol;
  for (size_t m = 0; m < modules.size(); ++m) {
    std::string moduleHeader;
    if (!parseModule(modules[m], moduleHeader, parsed[m], error))
      return {};
    if (m == 0)
      header = moduleHeader;
    else if (moduleHeader != header) {
      error = "PTX modules with different headers:\n" + header + "against\n" +
              moduleHeader;
      return {};
    }
    for (const Statement &statement : parsed[m]) {
      auto [it, inserted] = bySymbol.try_emplace(
          std::pair{statement.symbol, statement.function}, &statement);
      if (!inserted) {
        if (it->second->text != statement.text) {
          error =
              "two PTX modules declare '" + statement.symbol + "' differently";
          return {};
        }
        continue;
      }
      (statement.function ? functions : declarations).push_back(&statement);
    }
  }
  std::string merged = header;
  if (!declarations.empty())
    merged += "\n";
  for (const Statement *statement : declarations)
    merged += statement->text + "\n";
  for (const Statement *statement : functions)
    merged += "\n" + statement->text + "\n";
  return merged;
}
