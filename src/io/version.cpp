// gguf::version (gguf/version.h): GGUF_VERSION_STRING is CMakeLists.txt's project version.
#include "gguf/version.h"

namespace gguf {

const char* version() noexcept { return GGUF_VERSION_STRING; }

}  // namespace gguf
