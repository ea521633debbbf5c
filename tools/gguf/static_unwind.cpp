// The exception tables of the statically linked gguf, found the way a dynamically linked
// program finds them (CMakeLists.txt links this file, with -Wl,--eh-frame-hdr and
// -Wl,--wrap for the two functions below, into the static gguf only).
//
// In a static link, GCC's crtbeginT.o registers the whole .eh_frame with libgcc's unwinder
// (__register_frame_info), and the first exception thrown then counts and sorts every
// frame description entry of the executable (~40,000 here) before it can unwind: 2.3 ms,
// paid by every usage error and every --help (CLI11 reports both by throwing). Without
// that registration the unwinder asks dl_iterate_phdr for the PT_GNU_EH_FRAME segment that
// --eh-frame-hdr writes: the linker's sorted table, searched in place, as in every
// dynamically linked program. (`gguf tokenize --bogus`: 2.80 -> 0.49 ms CPU.)
extern "C" {

// crtbeginT.o's registration of .eh_frame at start: not done.
void __wrap___register_frame_info(const void*, void*) {}

// Its deregistration at exit, of nothing registered.
void* __wrap___deregister_frame_info(const void*) { return nullptr; }

}  // extern "C"
