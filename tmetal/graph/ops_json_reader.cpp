#include "tmetal/graph/ops_json_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>

#include "tmetal/graph/json_positions.h"

namespace tmetal::graph {

namespace {

using nlohmann::json;

// A problem with one op's own fields; becomes GraphOp::readError.
struct OpFieldError {
  std::string message;
};

std::string describe(const json& j) {
  std::string s = j.dump();
  return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// One integer of a shape, stride or axis list. `where` names it for errors.
int64_t readInteger(const json& j, const std::string& where) {
  if (j.is_number_unsigned()) {
    uint64_t u = j.get<uint64_t>();
    if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      throw OpFieldError{where + " is " + std::to_string(u) + ", beyond the 64-bit signed range"};
    return static_cast<int64_t>(u);
  }
  if (j.is_number_integer()) return j.get<int64_t>();
  if (j.is_string())
    throw OpFieldError{where + " is the symbolic dimension \"" + j.get<std::string>() +
                       "\"; only integer dimensions are supported"};
  if (j.is_number_float()) throw OpFieldError{where + " is " + describe(j) + ", not an integer"};
  throw OpFieldError{where + " must be an integer, not " + describe(j)};
}

std::vector<int64_t> readIntegerList(const json& j, const std::string& where) {
  if (!j.is_array()) throw OpFieldError{where + " must be a list of integers, not " + describe(j)};
  std::vector<int64_t> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(readInteger(j[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

std::vector<std::vector<int64_t>> readShapeList(const json& j, const std::string& where) {
  if (!j.is_array() || (!j.empty() && !j[0].is_array()))
    throw OpFieldError{where + " must be a list of shapes such as [[512, 512]], not " + describe(j)};
  std::vector<std::vector<int64_t>> out;
  for (size_t i = 0; i < j.size(); ++i) out.push_back(readIntegerList(j[i], where + "[" + std::to_string(i) + "]"));
  return out;
}

// stride/padding of conv2d: one integer for both spatial axes, or a pair.
std::vector<int64_t> readPair(const json& j, const std::string& where) {
  if (j.is_array()) {
    std::vector<int64_t> v = readIntegerList(j, where);
    if (v.size() != 2) throw OpFieldError{where + " must be an integer or a pair of integers"};
    return v;
  }
  int64_t v = readInteger(j, where);
  return {v, v};
}

void readArgs(const json& args, GraphOp& op) {
  if (!args.is_object()) throw OpFieldError{"\"args\" must be an object, not " + describe(args)};
  if (args.contains("axis")) {
    const json& axis = args["axis"];
    if (axis.is_array()) {
      op.axes = readIntegerList(axis, "args.axis");
      op.axisWasList = true;
    } else if (axis.is_number_integer()) {
      op.axes = std::vector<int64_t>{readInteger(axis, "args.axis")};
    } else if (!axis.is_null()) {
      throw OpFieldError{"args.axis must be an integer or a list of integers, not " + describe(axis)};
    }
  }
  if (args.contains("combiner")) {
    if (!args["combiner"].is_string()) throw OpFieldError{"args.combiner must be a string"};
    op.combiner = args["combiner"].get<std::string>();
  }
  if (args.contains("perm")) op.perm = readIntegerList(args["perm"], "args.perm");
  if (args.contains("stride")) op.convStride = readPair(args["stride"], "args.stride");
  if (args.contains("padding")) op.convPadding = readPair(args["padding"], "args.padding");
  if (args.contains("keepdims")) {
    if (!args["keepdims"].is_boolean()) throw OpFieldError{"args.keepdims must be true or false"};
    op.keepDims = args["keepdims"].get<bool>();
  }
}

void readOp(const json& j, GraphOp& op) {
  if (!j.is_object()) throw OpFieldError{"an op must be an object, not " + describe(j)};
  if (j.contains("id")) {
    if (!j["id"].is_string()) throw OpFieldError{"\"id\" must be a string"};
    op.id = j["id"].get<std::string>();
  }
  if (!j.contains("type")) throw OpFieldError{"missing \"type\""};
  if (!j["type"].is_string()) throw OpFieldError{"\"type\" must be a string, not " + describe(j["type"])};
  op.type = j["type"].get<std::string>();
  if (!j.contains("input_shapes")) throw OpFieldError{"missing \"input_shapes\""};
  op.inputShapes = readShapeList(j["input_shapes"], "input_shapes");
  if (j.contains("dtype")) {
    if (!j["dtype"].is_string()) throw OpFieldError{"\"dtype\" must be a string such as \"float32\""};
    op.dtype = j["dtype"].get<std::string>();
  }
  if (j.contains("strides")) {
    const json& s = j["strides"];
    // One list of integers is the strides of the first input.
    if (s.is_array() && !s.empty() && !s[0].is_array())
      op.inputStrides = {readIntegerList(s, "strides")};
    else
      op.inputStrides = readShapeList(s, "strides");
  }
  if (j.contains("args")) readArgs(j["args"], op);
}

// nlohmann reports "... parse error at line L, column C: <what>"; keep its
// position and the <what>.
[[noreturn]] void throwMalformed(const json::parse_error& e, const std::string& fileName) {
  std::string what = e.what();
  std::smatch m;
  SourcePos pos;
  pos.file = fileName;
  std::string message = what;
  if (std::regex_search(what, m, std::regex(R"(at line (\d+), column (\d+): (.*))"))) {
    pos.line = std::stoi(m[1].str());
    pos.col = std::stoi(m[2].str());
    message = m[3].str();
  } else if (std::regex_search(what, m, std::regex(R"(parse_error\.\d+\] parse error: (.*))"))) {
    message = m[1].str();
  }
  throw CompileError(pos, "malformed JSON: " + message);
}

// A number too large for a double (nlohmann's out_of_range.406, "number
// overflow parsing '1E400'"): the exception has no position, so the number
// is found in the text by its spelling.
[[noreturn]] void throwOutOfRange(const json::out_of_range& e, const std::string& text, const std::string& fileName) {
  const std::string what = e.what();
  std::smatch m;
  if (std::regex_search(what, m, std::regex(R"(number overflow parsing '([^']*)')"))) {
    const size_t at = text.find(m[1].str());
    SourcePos pos = at == std::string::npos ? SourcePos{fileName, 0, 0} : positionOf(text, at, fileName);
    throw CompileError(pos, "malformed JSON: the number " + m[1].str() + " is out of range");
  }
  throw CompileError(SourcePos{fileName, 0, 0}, "malformed JSON: " + what);
}

}  // namespace

OpsGraph readOpsJson(const std::string& text, const std::string& fileName) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    throwMalformed(e, fileName);
  } catch (const json::out_of_range& e) {
    throwOutOfRange(e, text, fileName);
  }
  SourcePos top{fileName, 1, 1};
  const json* list = nullptr;
  if (doc.is_array()) {
    list = &doc;
  } else if (doc.is_object()) {
    if (!doc.contains("ops")) throw CompileError(top, "expected an \"ops\" list at the top level");
    if (!doc["ops"].is_array()) throw CompileError(top, "\"ops\" must be a list of ops");
    list = &doc["ops"];
  } else {
    throw CompileError(top, "expected an object with an \"ops\" list, or a list of ops");
  }

  std::vector<size_t> offsets = opsElementOffsets(text);
  OpsGraph graph;
  graph.source = fileName;
  for (size_t i = 0; i < list->size(); ++i) {
    GraphOp op;
    op.index = i;
    if (i < offsets.size()) op.pos = positionOf(text, offsets[i], fileName);
    try {
      readOp((*list)[i], op);
    } catch (const OpFieldError& e) {
      op.readError = e.message;
    }
    graph.ops.push_back(std::move(op));
  }
  return graph;
}

OpsGraph readOpsJsonFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw CompileError("cannot read ops file '" + path + "': " + std::strerror(errno));
  std::stringstream buffer;
  buffer << in.rdbuf();
  return readOpsJson(buffer.str(), path);
}

}  // namespace tmetal::graph
