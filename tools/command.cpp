#include "tools/command.h"

#include <iostream>
#include <map>

#include "tmetal/codegen/debug_buffer.h"
#include "tmetal/support/diagnostic.h"

namespace tmetal::tools {

std::map<std::string, CommandSetup>& commandTable() {
  static std::map<std::string, CommandSetup> table;
  return table;
}

CommandRegistrar::CommandRegistrar(const std::string& name, CommandSetup setup) {
  commandTable()[name] = std::move(setup);
}

int guarded(const std::function<int()>& body) {
  try {
    return body();
  } catch (const CompileError& e) {
    std::cerr << e.what() << "\n";
  } catch (const codegen::DeviceAssertionError& e) {  // its message starts with the user's position
    std::cerr << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
  }
  return 1;
}

}  // namespace tmetal::tools
