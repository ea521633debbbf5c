// The files of `gguf serve`'s page, embedded in the binary at build time
// (cmake/embed_assets.cmake over tools/gguf/web): the page works offline, no CDN.
#pragma once

#include <span>
#include <string_view>

namespace gguf::cli {

struct web_asset {
  std::string_view path;  ///< "/index.html", "/app.js", ...
  std::string_view mime;  ///< Content-Type
  std::string_view bytes;
};

/// Every embedded file, in the order of tools/gguf/web's list in CMakeLists.txt.
std::span<const web_asset> web_assets();

}  // namespace gguf::cli
