// Locations: loc(...) after ops and arguments, and the `#locN = loc(...)`
// alias definitions that Triton prints before and after the module. An alias
// may be used before its definition, so all definitions are found first and
// each is read when it is first needed (and checked for cycles).
#include "tmetal/frontend/ttir_parser.h"

namespace tmetal::frontend {

void TtirParser::prescanAliases() {
  // Only `#name =` at bracket depth 0 defines an alias. Lexing errors are left
  // for the real parse to report at their place.
  Lexer scan(lexer_.source(), lexer_.filename());
  int depth = 0;
  try {
    Token previous;
    bool previousIsAliasAtTop = false;
    for (Token t = scan.lex(); !t.is(TokenKind::Eof); t = scan.lex()) {
      if (t.is(TokenKind::Equal) && previousIsAliasAtTop) {
        Token value = scan.lex();
        scan.resetTo(value.offset);
        AliasEntry entry;
        entry.nameOffset = previous.offset;
        entry.valueOffset = value.offset;
        aliases_.try_emplace(std::string(previous.text), std::move(entry));
      }
      switch (t.kind) {
        case TokenKind::LParen:
        case TokenKind::LBrace:
        case TokenKind::LSquare:
        case TokenKind::Less: ++depth; break;
        case TokenKind::RParen:
        case TokenKind::RBrace:
        case TokenKind::RSquare:
        case TokenKind::Greater: --depth; break;
        default: break;
      }
      previousIsAliasAtTop = t.is(TokenKind::HashIdent) && depth == 0;
      previous = t;
    }
  } catch (const CompileError&) {
  }
}

void TtirParser::parseAliasDefinition() {
  Token name = consume();
  expect(TokenKind::Equal, "after the alias name " + name.describe());
  auto it = aliases_.find(std::string(name.text));
  if (it == aliases_.end() || it->second.nameOffset != name.offset)
    failAt(name, "redefinition of alias " + name.describe());
  AliasEntry& entry = it->second;
  if (!tok_.isKeyword("loc")) {
    // An attribute alias (Triton's loop annotations): read now unless a use
    // has read it already.
    if (entry.state == AliasEntry::State::Resolved) {
      parseDialectAttributeText();
      return;
    }
    entry.state = AliasEntry::State::InProgress;
    entry.attributeText = parseDialectAttributeText();
    entry.isAttribute = true;
    entry.state = AliasEntry::State::Resolved;
    return;
  }
  if (entry.state == AliasEntry::State::Resolved) {
    parseLocationLiteral();  // read already (it was used earlier): step over it
    return;
  }
  entry.state = AliasEntry::State::InProgress;
  LocationTree value = parseLocationLiteral();
  entry.value = std::move(value);
  entry.state = AliasEntry::State::Resolved;
}

TtirParser::LocationTree TtirParser::resolveAlias(const Token& reference) {
  auto it = aliases_.find(std::string(reference.text));
  if (it == aliases_.end()) failAt(reference, "undefined location alias " + reference.describe());
  AliasEntry& entry = it->second;
  if (entry.state == AliasEntry::State::Resolved && entry.isAttribute)
    failAt(reference, "alias " + reference.describe() + " is not a location alias ('#name = loc(...)')");
  if (entry.state == AliasEntry::State::Resolved) return entry.value;
  if (entry.state == AliasEntry::State::InProgress)
    failAt(reference, "location alias " + reference.describe() + " is defined in terms of itself");
  readAtAliasValue(entry, [&] {
    if (!tok_.isKeyword("loc"))
      failAt(reference, "alias " + reference.describe() + " is not a location alias ('#name = loc(...)')");
    entry.state = AliasEntry::State::InProgress;
    entry.value = parseLocationLiteral();
    entry.state = AliasEntry::State::Resolved;
  });
  return entry.value;
}

void TtirParser::readAtAliasValue(const AliasEntry& entry, const std::function<void()>& read) {
  // Read the definition where it is, then come back.
  size_t resume = lexer_.position();
  Token current = tok_;
  lexer_.resetTo(entry.valueOffset);
  tok_ = lexer_.lex();
  read();
  lexer_.resetTo(resume);
  tok_ = current;
}

TtirParser::LocationTree TtirParser::parseLocationLiteral() {
  LocationRecursionGuard guard(*this, tok_.offset);
  expectKeyword("loc", "");
  expect(TokenKind::LParen, "after 'loc'");
  LocationTree tree = parseLocationBody();
  expect(TokenKind::RParen, "to close 'loc('");
  return tree;
}

TtirParser::LocationTree TtirParser::checkedLocation(LocationTree tree, size_t offset) {
  if (tree.depth > kMaxNesting)
    failAt(offset, "location nests too deep (more than " + std::to_string(kMaxNesting) + " levels, aliases expanded)");
  if (tree.parts > kMaxLocationParts)
    failAt(offset,
           "location is too large (more than " + std::to_string(kMaxLocationParts) + " parts, aliases expanded)");
  return tree;
}

TtirParser::LocationTree TtirParser::parseLocationBody() {
  LocationRecursionGuard guard(*this, tok_.offset);
  Token t = tok_;
  if (t.is(TokenKind::HashIdent)) {
    consume();
    return resolveAlias(t);
  }
  if (t.isKeyword("unknown")) {
    consume();
    return {ir::Location(), 1, 1};
  }
  if (t.isKeyword("callsite")) {
    consume();
    expect(TokenKind::LParen, "after 'callsite'");
    LocationTree callee = parseLocationBody();
    expectKeyword("at", "between the callee and the caller of 'callsite'");
    LocationTree caller = parseLocationBody();
    expect(TokenKind::RParen, "to close 'callsite('");
    return checkedLocation({ir::Location::callSite(callee.loc, caller.loc), 1 + std::max(callee.depth, caller.depth),
                            1 + callee.parts + caller.parts},
                           t.offset);
  }
  if (t.isKeyword("fused")) {
    consume();
    if (tok_.is(TokenKind::Less)) failAt(tok_, "fused locations with metadata (fused<...>) are not supported");
    expect(TokenKind::LSquare, "after 'fused'");
    std::vector<ir::Location> parts;
    int depth = 0;
    int64_t count = 1;
    if (!consumeIf(TokenKind::RSquare)) {
      while (true) {
        LocationTree part = parseLocationBody();
        depth = std::max(depth, part.depth);
        count += part.parts;
        if (count > kMaxLocationParts) checkedLocation({ir::Location(), 1, count}, t.offset);
        parts.push_back(std::move(part.loc));
        if (consumeIf(TokenKind::RSquare)) break;
        expect(TokenKind::Comma, "or ']' in 'fused[...]'");
      }
    }
    return checkedLocation({ir::Location::fused(std::move(parts)), 1 + depth, count}, t.offset);
  }
  if (t.is(TokenKind::String)) {
    consume();
    std::string text = Lexer::decodeString(t);
    if (consumeIf(TokenKind::Colon)) {
      Token line = expect(TokenKind::Integer, "as the line of the location");
      expect(TokenKind::Colon, "between the line and the column of the location");
      Token col = expect(TokenKind::Integer, "as the column of the location");
      int lineNumber = static_cast<int>(parseUnsigned(line, 1u << 30, "line number"));
      int colNumber = static_cast<int>(parseUnsigned(col, 1u << 30, "column number"));
      // A range (`to 12:4` or `to :9`) keeps only its start.
      if (consumeKeyword("to")) {
        if (consumeIf(TokenKind::Colon)) {
          expect(TokenKind::Integer, "as the end column of the location range");
        } else {
          expect(TokenKind::Integer, "as the end line of the location range");
          expect(TokenKind::Colon, "in the location range");
          expect(TokenKind::Integer, "as the end column of the location range");
        }
      }
      return {ir::Location::fileLineCol(std::move(text), lineNumber, colNumber), 1, 1};
    }
    if (consumeIf(TokenKind::LParen)) {
      LocationTree child = parseLocationBody();
      expect(TokenKind::RParen, "to close the named location");
      return checkedLocation({ir::Location::named(std::move(text), child.loc), 1 + child.depth, 1 + child.parts},
                             t.offset);
    }
    return {ir::Location::named(std::move(text), ir::Location()), 1, 1};
  }
  failExpected("a location (\"file\":line:col, \"name\"(...), callsite(...), fused[...], unknown or #alias)");
}

ir::Location TtirParser::parseTrailingLocation(size_t defaultOffset) {
  if (!tok_.isKeyword("loc")) return locationOf(defaultOffset);
  return parseLocationLiteral().loc;
}

namespace {
// Expanding aliases inside aliases can grow text exponentially.
constexpr size_t kMaxAttributeText = 1 << 16;
}  // namespace

std::string TtirParser::parseDialectAttributeText(size_t* end) {
  DepthGuard guard(*this, tok_.offset);
  if (!tok_.is(TokenKind::HashIdent)) failExpected("a dialect attribute ('#dialect.name<...>') as the alias's value");
  Token head = consume();
  if (end) *end = head.end();
  for (std::string_view gpu : {"#ttg.", "#triton_gpu.", "#ttng."})
    if (head.text.substr(0, gpu.size()) == gpu)
      failAt(head, "unsupported attribute " + head.describe() +
                       ": TritonGPU layouts belong to TTGIR; tmetal reads TTIR (Triton's 'ttir' stage)");
  if (head.text.find('.') == std::string_view::npos) return resolveAttributeAlias(head);
  std::string text(head.text);
  if (!tok_.is(TokenKind::Less) || tok_.offset != head.end()) return text;
  // The <...> body as written (whitespace kept), aliases in it expanded.
  const std::string_view source = lexer_.source();
  size_t previousEnd = head.end();
  int depth = 0;
  do {
    if (tok_.is(TokenKind::Eof)) failAt(head, "dialect attribute " + head.describe() + " is not closed with '>'");
    text.append(source.substr(previousEnd, tok_.offset - previousEnd));
    if (tok_.is(TokenKind::Less)) ++depth;
    if (tok_.is(TokenKind::Greater)) --depth;
    if (tok_.is(TokenKind::HashIdent)) {
      text += parseDialectAttributeText(&previousEnd);
    } else {
      text.append(tok_.text);
      previousEnd = consume().end();
    }
    if (text.size() > kMaxAttributeText)
      failAt(head, "dialect attribute " + head.describe() + " is too large (more than " +
                       std::to_string(kMaxAttributeText) + " characters, aliases expanded)");
  } while (depth > 0);
  if (end) *end = previousEnd;
  return text;
}

std::string TtirParser::resolveAttributeAlias(const Token& reference) {
  auto it = aliases_.find(std::string(reference.text));
  if (it == aliases_.end()) failAt(reference, "undefined attribute alias " + reference.describe());
  AliasEntry& entry = it->second;
  if (entry.state == AliasEntry::State::Resolved) {
    if (!entry.isAttribute) failAt(reference, "alias " + reference.describe() + " is a location, not an attribute");
    return entry.attributeText;
  }
  if (entry.state == AliasEntry::State::InProgress)
    failAt(reference, "attribute alias " + reference.describe() + " is defined in terms of itself");
  readAtAliasValue(entry, [&] {
    if (tok_.isKeyword("loc")) failAt(reference, "alias " + reference.describe() + " is a location, not an attribute");
    entry.state = AliasEntry::State::InProgress;
    entry.attributeText = parseDialectAttributeText();
    entry.isAttribute = true;
    entry.state = AliasEntry::State::Resolved;
  });
  return entry.attributeText;
}

}  // namespace tmetal::frontend
