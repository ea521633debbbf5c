// A progress line on standard error for commands that write big files (only when
// stderr is a terminal): "LABEL  42% 1.23/2.93 GB".
#pragma once

#include <unistd.h>

#include <cstdio>
#include <string>

#include "gguf/output.h"

namespace gguf::cli {

/// A progress callback printing `label` and the share written; empty when stderr is not
/// a terminal (scripts and tests get no control characters).
inline progress_fn progress_line(std::string label) {
  if (!::isatty(2)) return {};
  return [label = std::move(label)](uint64_t done, uint64_t total) {
    if (total == 0) {
      std::fprintf(stderr, "\r%s  %.2f GB", label.c_str(), static_cast<double>(done) / 1e9);
    } else {
      std::fprintf(stderr, "\r%s  %3d%% %.2f/%.2f GB", label.c_str(), static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
                   static_cast<double>(done) / 1e9, static_cast<double>(total) / 1e9);
    }
    if (total != 0 && done >= total) std::fprintf(stderr, "\n");
    std::fflush(stderr);
  };
}

}  // namespace gguf::cli
