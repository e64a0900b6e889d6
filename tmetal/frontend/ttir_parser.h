// The recursive-descent TTIR reader behind parseTtir(). One class, its parts
// split by topic over parse_*.cpp: tokens and values (ttir_parser.cpp),
// types, attributes, locations, the module structure (functions, regions,
// generic ops) and the pretty syntax of each op family (see ir/op_syntax.h).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "tmetal/frontend/structurize_returns.h"
#include "tmetal/frontend/ttir_lexer.h"
#include "tmetal/ir/module.h"
#include "tmetal/ir/op_syntax.h"

namespace tmetal::frontend {

class TtirParser {
 public:
  // Regions, types, attributes and locations nest at most this deep; deeper
  // input is rejected so that no input can exhaust the stack.
  static constexpr int kMaxNesting = 128;
  // A location, aliases expanded, has at most this many parts: aliases that
  // refer to each other twice per level would otherwise grow exponentially,
  // and the printer writes every location in full (Triton's call-site chains
  // have a few dozen parts).
  static constexpr int64_t kMaxLocationParts = 256;
  // Reading a location recurses through its parts and through aliases that
  // refer to aliases (which add no depth to the location itself); bounded
  // apart from kMaxNesting so that any location that was read can be printed
  // inline and read again.
  static constexpr int kMaxLocationRecursion = 4 * kMaxNesting;

  TtirParser(std::string_view text, std::string filename);
  std::unique_ptr<ir::Module> parseFile();

 private:
  // ---- tokens and errors (ttir_parser.cpp)
  const Token& tok() const { return tok_; }
  Token consume();
  bool consumeIf(TokenKind kind);
  bool consumeKeyword(std::string_view word);
  Token expect(TokenKind kind, std::string_view context);
  Token expectKeyword(std::string_view word, std::string_view context);
  Token peekNext();
  [[noreturn]] void failAt(size_t offset, const std::string& message) const;
  [[noreturn]] void failAt(const Token& token, const std::string& message) const { failAt(token.offset, message); }
  // "expected <what>, found <current token>" at the current token.
  [[noreturn]] void failExpected(std::string_view what) const;
  ir::Location locationOf(size_t offset) const;  // the text position as an ir::Location
  uint64_t parseUnsigned(const Token& token, uint64_t max, std::string_view what);

  class DepthGuard {
   public:
    DepthGuard(TtirParser& parser, size_t offset);
    ~DepthGuard() { --parser_.depth_; }
    DepthGuard(const DepthGuard&) = delete;
    DepthGuard& operator=(const DepthGuard&) = delete;

   private:
    TtirParser& parser_;
  };
  class LocationRecursionGuard {
   public:
    LocationRecursionGuard(TtirParser& parser, size_t offset);
    ~LocationRecursionGuard() { --parser_.locationRecursion_; }
    LocationRecursionGuard(const LocationRecursionGuard&) = delete;
    LocationRecursionGuard& operator=(const LocationRecursionGuard&) = delete;

   private:
    TtirParser& parser_;
  };

  // ---- values and their scopes (ttir_parser.cpp)
  struct OperandRef {
    Token token;  // the whole use, `%x` or `%x#1`
    std::string name;
    size_t index = 0;
  };
  OperandRef parseOperandRef();
  // One or more `%a, %b`; stops before a ',' not followed by a value.
  std::vector<OperandRef> parseOperandRefs();
  std::vector<OperandRef> parseOptionalOperandRefs();
  ir::Value* lookup(const OperandRef& ref) const;
  ir::Value* resolve(const OperandRef& ref, const ir::Type& expected) const;
  void checkType(const OperandRef& ref, ir::Value* value, const ir::Type& expected) const;
  void defineValue(const Token& nameToken, std::vector<ir::Value*> group);
  // The name hint kept in the IR: "" for numbered values (%3) and for names
  // like the printer's default for block arguments (%arg3), which could
  // otherwise clash with the names the printer makes.
  static std::string nameHint(const Token& nameToken);
  void pushScope() { scopes_.emplace_back(); }
  void popScope() { scopes_.pop_back(); }

  // ---- types (parse_types.cpp)
  ir::Type parseType();
  ir::Type parseTensorType(const Token& keyword);
  ir::Type parsePointerParams(size_t typeOffset);  // after `!tt.ptr` or the short form's '<'
  ir::Type parseTensorPointerType();               // `<tensor<..>>` or `!tt.ptr<tensor<..>>`
  std::vector<ir::Type> parseTypeList();           // T (, T)*
  std::vector<ir::Type> parseParenTypeList();      // ( [T (, T)*] )
  std::vector<ir::Type> parseResultTypeList();     // T | ( [T (, T)*] )
  struct FunctionType {
    std::vector<ir::Type> inputs;
    std::vector<ir::Type> results;
  };
  FunctionType parseFunctionType();
  bool atTypeStart() const;

  // ---- attributes (parse_attributes.cpp)
  ir::Attribute parseAttribute();
  void parseAttrDict(ir::AttrList& into);          // { name [= value], ... }
  void parseOptionalAttrDict(ir::AttrList& into);  // the same when the current token is '{'
  void setUniqueAttr(ir::AttrList& into, const Token& nameToken, const std::string& name, ir::Attribute value);
  ir::Attribute parseNumber(const Token& signToken, bool negative, const ir::Type* type);
  ir::Attribute parseIntegerLiteral(const Token& token, bool negative, const ir::Type& type);
  ir::Attribute parseFloatLiteral(const Token& token, bool negative, const ir::Type& type);
  ir::Attribute parseDenseElements();
  ir::Attribute parseDenseArray();
  ir::Attribute parseScalarElement(const Token& token, bool negative, const ir::Type& elementType);

  // ---- locations (parse_locations.cpp)
  struct LocationTree {
    ir::Location loc;
    int depth = 1;
    int64_t parts = 1;
  };
  struct AliasEntry {
    size_t nameOffset = 0;
    size_t valueOffset = 0;  // the first token after '='
    enum class State { Unresolved, InProgress, Resolved } state = State::Unresolved;
    LocationTree value;
    bool isAttribute = false;   // `#name = #dialect.attr<...>` rather than a location
    std::string attributeText;  // its value, aliases expanded
  };
  void prescanAliases();
  void parseAliasDefinition();
  LocationTree parseLocationLiteral();  // loc( ... )
  LocationTree parseLocationBody();
  LocationTree resolveAlias(const Token& reference);
  // Runs `read` with the parser at the first token of the alias's value, then returns to where it was.
  void readAtAliasValue(const AliasEntry& entry, const std::function<void()>& read);
  // A dialect attribute (`#llvm.loop_annotation<licm = #loop_licm>`) as
  // text with the attribute aliases in it expanded, from tok_ on; and an
  // attribute alias's text, read where it is defined when first used.
  // `end`: where the attribute's text ends in the source.
  std::string parseDialectAttributeText(size_t* end = nullptr);
  std::string resolveAttributeAlias(const Token& reference);
  LocationTree checkedLocation(LocationTree tree, size_t offset);
  // A trailing `loc(...)`, or the text position `defaultOffset` when absent
  // (as MLIR does for text without locations).
  ir::Location parseTrailingLocation(size_t defaultOffset);

  // ---- module structure (parse_module.cpp)
  void parseModule();
  void parseFunction();
  struct ResultBinding {
    Token token;
    size_t count = 1;
  };
  struct PendingOp {
    Token start;  // the first token: a result name or the op name
    Token nameToken;
    std::string name;
    ir::OpKind kind = ir::OpKind::Unknown;
    std::vector<ResultBinding> bindings;
    size_t numResults = 0;
    // Both take the op's location once it is read: the text has no place for
    // the location of an implicit terminator or of scf.for's and scf.while's
    // block arguments (so that printing and reading again keeps it).
    std::vector<ir::Operation*> implicitTerminators;
    std::vector<ir::Value*> argumentsWithoutLocation;
  };
  void parseOperation(ir::Block* block);
  std::unique_ptr<ir::Operation> makeOp(PendingOp& op, std::vector<ir::Value*> operands,
                                        const std::vector<ir::Type>& resultTypes, ir::AttrList attrs = {});
  std::unique_ptr<ir::Operation> parseGenericOp(PendingOp& op);
  // `{ ops }` into a block that already has its arguments.
  void parseBlockBody(ir::Block* block, std::string_view what);
  void parseFunctionBody(ir::Function* function);
  void parseMapElementwiseRegion(ir::Region* region);
  // The blocks of `body` up to its '}' (its entry block exists already):
  // labelled blocks joined by branches are rebuilt as one (structurizeReturns).
  void parseBlocks(ir::Region* body, const Token& open, std::string_view what, std::string_view returnName);
  void parseBranch(Branch& branch, std::vector<std::pair<Token, Successor*>>& targets);
  [[noreturn]] void failUnterminated(const Token& open, std::string_view what) const;
  void parseBlockArguments(ir::Block* block);
  // `{ [^bb0(%a: T loc(..), ..):] ops }`: an MLIR region with its own header.
  void parseRegionWithHeader(ir::Region* region);
  void parseOpsUntilBrace(ir::Block* block, const Token& open, std::string_view what);
  ir::Value* addBlockArgument(ir::Block* block, const Token& nameToken, const ir::Type& type, ir::Location loc);
  void addImplicitYield(PendingOp& op, ir::Block* block);

  // ---- pretty op syntax (parse_ops.cpp)
  std::unique_ptr<ir::Operation> parsePrettyOp(PendingOp& op);
  void expectOperandCount(const PendingOp& op, const std::vector<OperandRef>& refs, size_t min, size_t max);
  void parseOptionalFlagsKeyword(std::string_view keyword, const std::string& attrName, ir::AttrList& attrs);
  std::string parseEnumKeyword(std::string_view what);
  std::vector<ir::Value*> resolveAll(const std::vector<OperandRef>& refs, const std::vector<ir::Type>& types);
  std::unique_ptr<ir::Operation> parseConstant(PendingOp& op);
  std::unique_ptr<ir::Operation> parseSameType(PendingOp& op);
  std::unique_ptr<ir::Operation> parseCompare(PendingOp& op);
  std::unique_ptr<ir::Operation> parseSelect(PendingOp& op);
  std::unique_ptr<ir::Operation> parseCast(PendingOp& op);
  std::unique_ptr<ir::Operation> parseArrow(PendingOp& op);
  std::unique_ptr<ir::Operation> parseProgramDim(PendingOp& op);
  std::unique_ptr<ir::Operation> parseResultTypeOnly(PendingOp& op);
  std::unique_ptr<ir::Operation> parseOperandTypeOnly(PendingOp& op);
  std::unique_ptr<ir::Operation> parseGather(PendingOp& op);
  std::unique_ptr<ir::Operation> parseAddPtr(PendingOp& op);
  std::unique_ptr<ir::Operation> parseLoadStore(PendingOp& op, bool isLoad);
  std::unique_ptr<ir::Operation> parseAtomic(PendingOp& op, bool isRmw);
  std::unique_ptr<ir::Operation> parseDot(PendingOp& op);
  std::unique_ptr<ir::Operation> parseDotScaled(PendingOp& op);
  std::unique_ptr<ir::Operation> parseMakeTensorPtr(PendingOp& op);
  std::unique_ptr<ir::Operation> parseAdvance(PendingOp& op);
  std::unique_ptr<ir::Operation> parseFunctional(PendingOp& op);
  std::unique_ptr<ir::Operation> parseCall(PendingOp& op);
  std::unique_ptr<ir::Operation> parseClampF(PendingOp& op);
  std::unique_ptr<ir::Operation> parsePrint(PendingOp& op);
  std::unique_ptr<ir::Operation> parseAssert(PendingOp& op);
  std::unique_ptr<ir::Operation> parseTerminator(PendingOp& op);
  std::unique_ptr<ir::Operation> parseRegionReturn(PendingOp& op);
  std::unique_ptr<ir::Operation> parseCondition(PendingOp& op);
  std::unique_ptr<ir::Operation> parseFor(PendingOp& op);
  std::unique_ptr<ir::Operation> parseIf(PendingOp& op);
  std::unique_ptr<ir::Operation> parseWhile(PendingOp& op);

  Lexer lexer_;
  Token tok_;
  int depth_ = 0;
  int locationRecursion_ = 0;
  std::unique_ptr<ir::Module> module_;
  std::vector<std::unordered_map<std::string, std::vector<ir::Value*>>> scopes_;
  std::unordered_map<std::string, AliasEntry> aliases_;
};

}  // namespace tmetal::frontend
