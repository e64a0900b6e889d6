#include "tmetal/frontend/ttir_reader.h"

#include "tmetal/frontend/ttir_parser.h"

namespace tmetal::frontend {

std::unique_ptr<ir::Module> parseTtir(std::string_view text, const std::string& filename) {
  return TtirParser(text, filename).parseFile();
}

}  // namespace tmetal::frontend
