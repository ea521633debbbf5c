// Memory of a remote read that walks every tensor (issue 29, item 2): `gguf hash URL` of
// a file of a few hundred MiB, served by a real nginx, keeps only the windows it is
// hashing, not the file.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gguf/writer.h"
#include "nginx_server.h"

using gguf::test::nginx_server;
using gguf::test::run_gguf;

namespace {

constexpr uint64_t mib = 1ull << 20;

// Writes `n_tensors` F32 tensors of 32 MiB each (the same pseudo-random bytes: the hash
// must see real content) to `path`.
void write_large_model(const std::filesystem::path& path, int n_tensors) {
  const uint64_t n = 8 * mib;  // floats per tensor
  std::vector<float> data(n);
  std::mt19937 rng(29);
  std::uniform_real_distribution<float> d(-1.0f, 1.0f);
  for (auto& x : data) x = d(rng);
  gguf::writer w;
  auto set = w.set("general.architecture", gguf::value::string("llama"));
  ASSERT_TRUE(set) << set.error().message();
  const std::vector<uint64_t> ne{4096, n / 4096};
  for (int i = 0; i < n_tensors; ++i) {
    auto r = w.add_tensor("blk." + std::to_string(i) + ".ffn_up.weight", gguf::ggml_type::f32, ne,
                          std::as_bytes(std::span(data)));
    ASSERT_TRUE(r) << r.error().message();
  }
  auto r = w.write_file(path);
  ASSERT_TRUE(r) << r.error().message();
}

}  // namespace

// 256 MiB hashed through HTTP: the same digests as the local file, and the process's peak
// RSS stays below 96 MiB (a 16 MiB window, one thread, the program itself). Before the fix
// each fetched window joined the kept metadata prefix and the peak was the file's size.
TEST(Issue29, Item2RemoteHashReleasesFetchedWindows) {
  nginx_server server(std::filesystem::temp_directory_path());
  ASSERT_TRUE(server.started()) << server.why_not();
  const auto path = server.scratch() / "large.gguf";
  write_large_model(path, 8);
  ASSERT_FALSE(HasFatalFailure());
  ASSERT_GE(std::filesystem::file_size(path), 256 * mib);
  const std::string url = server.base() + "/mutable/large.gguf";

  auto local = run_gguf({"hash", "--threads", "1", path.string()});
  auto remote = run_gguf({"hash", "--threads", "1", url});
  ASSERT_EQ(local.exit_code, 0) << local.err;
  ASSERT_EQ(remote.exit_code, 0) << remote.err;
  auto replace = [](std::string s, const std::string& from, const std::string& to) {
    for (size_t p = 0; (p = s.find(from, p)) != std::string::npos; p += to.size()) s.replace(p, from.size(), to);
    return s;
  };
  EXPECT_EQ(replace(remote.out, url, path.string()), local.out);
  EXPECT_NE(local.out.find("blk.7.ffn_up.weight"), std::string::npos) << local.out;
  std::printf("file %llu MiB, remote hash peak RSS %llu MiB\n",
              static_cast<unsigned long long>(std::filesystem::file_size(path) / mib),
              static_cast<unsigned long long>(remote.max_rss_kib / 1024));
  // Under AddressSanitizer freed memory sits in its quarantine (256 MiB by default) and the
  // shadow adds more: 140 MiB was measured there. Keeping the file's windows, as before the
  // fix, costs the whole 256 MiB on top, so three quarters of the file still tells them apart.
#if defined(__SANITIZE_ADDRESS__)
  constexpr uint64_t bound = 192 * mib;
#else
  constexpr uint64_t bound = 96 * mib;
#endif
  EXPECT_LT(remote.max_rss_kib * 1024, bound);
  std::filesystem::remove(path);
}
