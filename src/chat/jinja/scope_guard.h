// Scope switching for the interpreter's statements, loops and macro calls (internal).
#pragma once

#include <memory>
#include <utility>

#include "chat/jinja/runtime.h"

namespace gguf::jinja::detail {

// Makes `nf` the current scope for the guard's lifetime; a scope nobody else holds
// afterwards goes back to the interpreter's pool (no allocation per macro call or loop).
struct scope_guard {
  interp& in;
  std::shared_ptr<frame>& slot;
  std::shared_ptr<frame> saved;
  scope_guard(interp& i, std::shared_ptr<frame>& s, std::shared_ptr<frame> nf)
      : in(i), slot(s), saved(std::move(s)) {
    slot = std::move(nf);
  }
  ~scope_guard() {
    std::shared_ptr<frame> done = std::move(slot);
    slot = std::move(saved);
    in.recycle(std::move(done));
  }
};

}  // namespace gguf::jinja::detail
