// The structure of a TTIR file: location aliases, the module, its tt.func
// functions, regions and blocks, each op's result names and location, and
// the generic op form ("tt.reduce"(...) <{...}> ({...}) : (...) -> ...).
#include "tmetal/frontend/ttir_parser.h"
#include "tmetal/ir/op_traits.h"

namespace tmetal::frontend {

std::unique_ptr<ir::Module> TtirParser::parseFile() {
  prescanAliases();
  while (!tok_.is(TokenKind::Eof)) {
    if (tok_.is(TokenKind::HashIdent)) {
      parseAliasDefinition();
    } else if (tok_.isKeyword("module")) {
      if (module_) failAt(tok_, "a TTIR file holds one module; found a second 'module'");
      parseModule();
    } else {
      failExpected("'module' or a location alias ('#loc = loc(...)')");
    }
  }
  if (!module_) failAt(tok_, "expected 'module', found end of file");
  return std::move(module_);
}

void TtirParser::parseModule() {
  Token keyword = consume();
  if (tok_.is(TokenKind::SymbolRef)) failAt(tok_, "named modules are not supported");
  module_ = std::make_unique<ir::Module>();
  if (consumeKeyword("attributes")) parseAttrDict(module_->attrs());
  Token open = expect(TokenKind::LBrace, "to open the module");
  while (!tok_.is(TokenKind::RBrace)) {
    if (tok_.is(TokenKind::Eof)) {
      SourcePos opened = lexer_.posAt(open.offset);
      failAt(tok_, "unterminated module: expected '}' to close the module opened at line " +
                       std::to_string(opened.line) + ", column " + std::to_string(opened.col));
    }
    if (tok_.isKeyword("tt.func")) {
      parseFunction();
      continue;
    }
    if (tok_.is(TokenKind::BareIdent) && ir::opKindFromName(std::string(tok_.text)) == ir::OpKind::Unknown)
      failAt(tok_, "unsupported op '" + std::string(tok_.text) + "'");
    failExpected("'tt.func' or '}' (only functions may appear at module level)");
  }
  consume();
  module_->setLoc(parseTrailingLocation(keyword.offset));
}

void TtirParser::parseFunction() {
  Token keyword = consume();
  bool isPublic = true;
  if (consumeKeyword("private")) {
    isPublic = false;
  } else if (!consumeKeyword("public") && tok_.isKeyword("nested")) {
    failAt(tok_, "'nested' function visibility is not supported");
  }
  Token symbol = expect(TokenKind::SymbolRef, "as the function name");
  std::string_view rawName = symbol.text.substr(1);
  std::string name = rawName.size() && rawName[0] == '"' ? Lexer::decodeString(symbol) : std::string(rawName);
  if (name.empty()) failAt(symbol, "a function name cannot be empty");
  if (module_->lookup(name)) failAt(symbol, "redefinition of function " + symbol.describe());
  ir::Function* function = module_->addFunction(name, isPublic);

  pushScope();  // functions are isolated: each starts with no visible values
  expect(TokenKind::LParen, "to open the argument list");
  if (!consumeIf(TokenKind::RParen)) {
    while (true) {
      if (!tok_.is(TokenKind::ValueId)) {
        if (atTypeStart()) failAt(tok_, "function declarations (arguments without names, no body) are not supported");
        failExpected("an argument like '%x: i32'");
      }
      Token argName = consume();
      expect(TokenKind::Colon, "after the argument name");
      ir::Type type = parseType();
      ir::AttrList attrs;
      parseOptionalAttrDict(attrs);
      ir::Location loc = parseTrailingLocation(argName.offset);
      ir::Value* arg = function->addArgument(type, nameHint(argName), std::move(attrs), std::move(loc));
      defineValue(argName, {arg});
      if (consumeIf(TokenKind::RParen)) break;
      expect(TokenKind::Comma, "or ')' in the argument list");
    }
  }
  if (consumeIf(TokenKind::Arrow)) function->resultTypes() = parseResultTypeList();
  if (consumeKeyword("attributes")) parseAttrDict(function->attrs());
  if (!tok_.is(TokenKind::LBrace))
    failExpected("'{' to open the body of function " + symbol.describe() +
                 " (declarations without a body are not supported)");
  parseFunctionBody(function);
  popScope();
  function->setLoc(parseTrailingLocation(keyword.offset));
}

// A function body is one block, or (a return inside an if) labelled blocks
// joined by cf.cond_br and cf.br, which structurizeReturns turns into scf.if.
void TtirParser::parseFunctionBody(ir::Function* function) {
  DepthGuard guard(*this, tok_.offset);
  Token open = expect(TokenKind::LBrace, "to open the function body");
  if (tok_.is(TokenKind::BlockId))
    failAt(tok_, "a block label is not allowed here: the function body's arguments are given by the op");
  parseBlocks(function->body(), open, "function body", "tt.return");
}

// The region of tl.map_elementwise: its function's returns make blocks as a
// function body's do.
void TtirParser::parseMapElementwiseRegion(ir::Region* region) {
  DepthGuard guard(*this, tok_.offset);
  Token open = expect(TokenKind::LBrace, "to open the region");
  ir::Block* entry = region->addBlock();
  if (tok_.is(TokenKind::BlockId)) {
    consume();
    parseBlockArguments(entry);
    expect(TokenKind::Colon, "after the block label");
  }
  parseBlocks(region, open, "region", "tt.map_elementwise.return");
}

void TtirParser::parseBlocks(ir::Region* body, const Token& open, std::string_view what, std::string_view returnName) {
  std::unordered_map<std::string, ir::Block*> labelled;
  std::vector<std::pair<Token, Successor*>> targets;  // successors named before their block
  std::unordered_map<const ir::Block*, Branch> branches;  // nodes stay put: `targets` points into them
  ir::Block* block = body->block(0);
  auto ended = [&](const ir::Block* b) {
    return branches.count(b) || (b->terminator() && ir::isTerminator(b->terminator()->kind()));
  };
  while (!tok_.is(TokenKind::RBrace)) {
    if (tok_.is(TokenKind::Eof)) failUnterminated(open, what);
    if (tok_.is(TokenKind::BlockId)) {
      if (!ended(block))
        failAt(tok_, "the block before " + tok_.describe() + " must end in " + std::string(returnName) + " or a branch");
      Token label = consume();
      block = body->addBlock();
      if (!labelled.emplace(std::string(label.text), block).second)
        failAt(label, "redefinition of block " + label.describe());
      parseBlockArguments(block);
      expect(TokenKind::Colon, "after the block label");
      continue;
    }
    if (ended(block))
      failAt(tok_, (branches.count(block) ? std::string("a branch")
                                          : "'" + std::string(ir::opKindName(block->terminator()->kind())) + "'") +
                       " ends its block: no operation may follow it before the closing '}'");
    if (tok_.is(TokenKind::BareIdent) && (tok_.text == "cf.br" || tok_.text == "cf.cond_br")) {
      parseBranch(branches[block], targets);
      continue;
    }
    parseOperation(block);
  }
  consume();
  if (!ended(block)) failAt(tok_, "the " + std::string(what) + " must end in " + std::string(returnName));
  for (auto& [label, successor] : targets) {
    auto it = labelled.find(std::string(label.text));
    if (it == labelled.end()) failAt(label, "branch to undefined block " + label.describe());
    successor->block = it->second;
    if (successor->block->numArguments() != successor->args.size())
      failAt(label, "the branch passes " + std::to_string(successor->args.size()) + " value(s) to " +
                        label.describe() + ", which takes " + std::to_string(successor->block->numArguments()));
  }
  if (body->numBlocks() > 1) structurizeReturns(*body, branches);
}

// `cf.br ^bb1(%x : i32)` or `cf.cond_br %c, ^bb1, ^bb2(%x : i32)`; the
// successor blocks are resolved once the body is read (`targets`).
void TtirParser::parseBranch(Branch& branch, std::vector<std::pair<Token, Successor*>>& targets) {
  Token start = consume();
  auto successor = [&](Successor& s) {
    if (!tok_.is(TokenKind::BlockId)) failExpected("a successor block like '^bb1'");
    targets.emplace_back(consume(), &s);
    if (!consumeIf(TokenKind::LParen)) return;
    std::vector<OperandRef> refs = parseOperandRefs();
    Token colon = expect(TokenKind::Colon, "before the types of the successor's arguments");
    std::vector<ir::Type> types = parseTypeList();
    if (types.size() != refs.size())
      failAt(colon, "a successor has " + std::to_string(refs.size()) + " argument(s) but " +
                        std::to_string(types.size()) + " type(s)");
    s.args = resolveAll(refs, types);
    expect(TokenKind::RParen, "to close the successor's arguments");
  };
  if (start.text == "cf.cond_br") {
    branch.condition = resolve(parseOperandRef(), ir::Type::i1());
    expect(TokenKind::Comma, "after the branch condition");
    successor(branch.onTrue);
    expect(TokenKind::Comma, "between the two successors");
    successor(branch.onFalse);
  } else {
    successor(branch.onTrue);
  }
  branch.loc = parseTrailingLocation(start.offset);
}

void TtirParser::parseBlockBody(ir::Block* block, std::string_view what) {
  DepthGuard guard(*this, tok_.offset);
  Token open = expect(TokenKind::LBrace, "to open the " + std::string(what));
  if (tok_.is(TokenKind::BlockId))
    failAt(tok_, "a block label is not allowed here: the " + std::string(what) + "'s arguments are given by the op");
  parseOpsUntilBrace(block, open, what);
}

void TtirParser::parseRegionWithHeader(ir::Region* region) {
  DepthGuard guard(*this, tok_.offset);
  Token open = expect(TokenKind::LBrace, "to open the region");
  if (tok_.is(TokenKind::RBrace)) {
    consume();  // an empty region: no blocks
    return;
  }
  ir::Block* block = region->addBlock();
  if (tok_.is(TokenKind::BlockId)) {
    consume();
    parseBlockArguments(block);
    expect(TokenKind::Colon, "after the block label");
  }
  parseOpsUntilBrace(block, open, "region");
}

void TtirParser::parseOpsUntilBrace(ir::Block* block, const Token& open, std::string_view what) {
  while (!tok_.is(TokenKind::RBrace)) {
    if (tok_.is(TokenKind::Eof)) failUnterminated(open, what);
    if (tok_.is(TokenKind::BlockId))
      failAt(tok_, "regions with more than one block are not supported (Triton's TTIR uses structured control flow)");
    // Nothing may follow a terminator: printed back, `tt.return` on one line
    // and `%x = ...` on the next would read as `tt.return %x ...`.
    const ir::Operation* last = block->terminator();
    if (last && ir::isTerminator(last->kind()))
      failAt(tok_, std::string("'") + ir::opKindName(last->kind()) +
                       "' ends its block: no operation may follow it before the closing '}'");
    parseOperation(block);
  }
  consume();
}

void TtirParser::failUnterminated(const Token& open, std::string_view what) const {
  SourcePos opened = lexer_.posAt(open.offset);
  failAt(tok_, "unterminated " + std::string(what) + ": expected '}' to close the '{' at line " +
                   std::to_string(opened.line) + ", column " + std::to_string(opened.col));
}

// `(%x: f32 loc(..), ...)` after a block label, if present.
void TtirParser::parseBlockArguments(ir::Block* block) {
  if (!consumeIf(TokenKind::LParen) || consumeIf(TokenKind::RParen)) return;
  while (true) {
    if (!tok_.is(TokenKind::ValueId)) failExpected("a block argument like '%x: f32'");
    Token argName = consume();
    expect(TokenKind::Colon, "after the block argument name");
    ir::Type type = parseType();
    addBlockArgument(block, argName, type, parseTrailingLocation(argName.offset));
    if (consumeIf(TokenKind::RParen)) break;
    expect(TokenKind::Comma, "or ')' in the block arguments");
  }
}

ir::Value* TtirParser::addBlockArgument(ir::Block* block, const Token& nameToken, const ir::Type& type,
                                        ir::Location loc) {
  ir::Value* arg = block->addArgument(type, nameHint(nameToken), std::move(loc));
  defineValue(nameToken, {arg});
  return arg;
}

void TtirParser::addImplicitYield(PendingOp& op, ir::Block* block) {
  // MLIR leaves out an scf.yield without values; put it back.
  if (block->terminator() && block->terminator()->kind() == ir::OpKind::ScfYield) return;
  ir::Operation* yield = block->append(std::make_unique<ir::Operation>(
      "scf.yield", std::vector<ir::Value*>{}, std::vector<ir::Type>{}, ir::AttrList{}, ir::Location()));
  op.implicitTerminators.push_back(yield);
}

void TtirParser::parseOperation(ir::Block* block) {
  PendingOp op;
  op.start = tok_;
  if (tok_.is(TokenKind::ValueId)) {
    while (true) {
      ResultBinding binding{consume(), 1};
      if (consumeIf(TokenKind::Colon)) {
        Token count = expect(TokenKind::Integer, "as the number of results");
        binding.count = parseUnsigned(count, 1u << 16, "result count");
        if (binding.count == 0) failAt(count, "a result group must name at least one result");
      }
      op.numResults += binding.count;
      if (op.numResults > (1u << 16)) failAt(binding.token, "too many results");
      op.bindings.push_back(binding);
      if (!consumeIf(TokenKind::Comma)) break;
      if (!tok_.is(TokenKind::ValueId)) failExpected("a result name after ','");
    }
    expect(TokenKind::Equal, "after the result names");
  }
  op.nameToken = tok_;
  const bool generic = tok_.is(TokenKind::String);
  if (generic) {
    op.name = Lexer::decodeString(tok_);
  } else if (tok_.is(TokenKind::BareIdent)) {
    op.name = std::string(tok_.text);
  } else {
    failExpected("an op name");
  }
  op.name = ir::canonicalOpName(op.name);
  op.kind = ir::opKindFromName(op.name);
  if (op.kind == ir::OpKind::Unknown)
    failAt(op.nameToken, "unsupported op '" + (generic ? Lexer::decodeString(op.nameToken) : op.name) + "'");
  if (op.kind == ir::OpKind::TtFunc) failAt(op.nameToken, "'tt.func' is only allowed at module level");
  consume();

  std::unique_ptr<ir::Operation> parsed = generic ? parseGenericOp(op) : parsePrettyOp(op);
  parsed->setLoc(parseTrailingLocation(op.start.offset));
  for (ir::Operation* terminator : op.implicitTerminators) terminator->setLoc(parsed->loc());
  for (ir::Value* arg : op.argumentsWithoutLocation) arg->setLoc(parsed->loc());
  ir::Operation* appended = block->append(std::move(parsed));

  size_t next = 0;
  for (const ResultBinding& binding : op.bindings) {
    std::vector<ir::Value*> group;
    for (size_t i = 0; i < binding.count; ++i) group.push_back(appended->result(next + i));
    group[0]->setName(nameHint(binding.token));
    defineValue(binding.token, std::move(group));
    next += binding.count;
  }
}

std::unique_ptr<ir::Operation> TtirParser::makeOp(PendingOp& op, std::vector<ir::Value*> operands,
                                                  const std::vector<ir::Type>& resultTypes, ir::AttrList attrs) {
  if (resultTypes.size() != op.numResults) {
    std::string message = "'" + op.name + "' defines " + std::to_string(resultTypes.size()) + " result(s) but " +
                          std::to_string(op.numResults) + " " + (op.numResults == 1 ? "is" : "are") +
                          " named before '='";
    failAt(op.start, message);
  }
  return std::make_unique<ir::Operation>(op.name, std::move(operands), resultTypes, std::move(attrs), ir::Location());
}

std::unique_ptr<ir::Operation> TtirParser::parseGenericOp(PendingOp& op) {
  expect(TokenKind::LParen, "to open the operands of the generic op");
  std::vector<OperandRef> refs;
  if (!consumeIf(TokenKind::RParen)) {
    refs = parseOperandRefs();
    expect(TokenKind::RParen, "to close the operands");
  }
  std::vector<ir::Value*> operands;
  for (const OperandRef& ref : refs) operands.push_back(lookup(ref));
  if (tok_.is(TokenKind::LSquare)) failAt(tok_, "ops with successor blocks are not supported");
  ir::AttrList attrs;
  if (tok_.is(TokenKind::Less)) {
    consume();
    parseAttrDict(attrs);  // properties
    expect(TokenKind::Greater, "to close the properties '<{...}>'");
  }
  // Result types come last; until then the results are typeless.
  auto parsed = std::make_unique<ir::Operation>(op.name, std::move(operands), std::vector<ir::Type>(op.numResults),
                                                ir::AttrList{}, ir::Location());
  if (tok_.is(TokenKind::LParen)) {
    consume();
    while (true) {
      pushScope();
      if (op.name == "tt.map_elementwise")
        parseMapElementwiseRegion(parsed->addRegion());
      else
        parseRegionWithHeader(parsed->addRegion());
      popScope();
      if (consumeIf(TokenKind::RParen)) break;
      expect(TokenKind::Comma, "or ')' between regions");
    }
  }
  parseOptionalAttrDict(attrs);
  for (const auto& [name, value] : attrs.entries()) parsed->attrs().set(name, value);
  Token colon = expect(TokenKind::Colon, "before the op's function type");
  FunctionType type = parseFunctionType();
  if (type.inputs.size() != refs.size())
    failAt(colon, "'" + op.name + "' has " + std::to_string(refs.size()) + " operand(s) but its type lists " +
                      std::to_string(type.inputs.size()));
  for (size_t i = 0; i < refs.size(); ++i) checkType(refs[i], parsed->operand(i), type.inputs[i]);
  if (type.results.size() != op.numResults) {
    failAt(op.start, "'" + op.name + "' defines " + std::to_string(type.results.size()) + " result(s) but " +
                         std::to_string(op.numResults) + " " + (op.numResults == 1 ? "is" : "are") +
                         " named before '='");
  }
  for (size_t i = 0; i < type.results.size(); ++i) parsed->result(i)->setType(type.results[i]);
  return parsed;
}

}  // namespace tmetal::frontend
