// `gguf serve` in the gguf binary: runs gguf-serve, the same tool with the web server
// linked in (cmd_serve.cpp), from the folder of this executable, with the same arguments
// (exec: same process, same pid, same standard streams). The server library (Debian's
// cpp-httplib) pulls in OpenSSL, zlib and brotli and initializes OpenSSL when it loads:
// about 2.9 ms of CPU in every process that links it (bench/load_vs_llama.py measures the
// whole-process load), which no other command needs.
#include <string>
#include <vector>

#include "commands.h"

namespace gguf::cli {
namespace {

int run(int argc, char** argv) {
  std::string name = "gguf-serve";
  std::vector<char*> args{name.data()};
  for (int i = 0; i < argc; ++i) args.push_back(argv[i]);  // argv[0] = "serve"
  return exec_beside(name.c_str(), args, "serves the viewer");
}

const registrar reg{"serve", "local web viewer of files: metadata, tensors, tokenizer, memory, diff", run};

}  // namespace
}  // namespace gguf::cli
