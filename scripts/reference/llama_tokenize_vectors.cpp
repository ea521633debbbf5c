// Records what llama.cpp's llama_tokenize returns for a list of texts, in three modes:
// 0 plain (add_special = parse_special = false), 1 parse_special, 2 add_special +
// parse_special. Built against the reference libllama by scripts/make_tokenizer_vectors.py.
//
// usage: llama_tokenize_vectors MODEL TEXTS
//   TEXTS: the texts, each followed by a NUL byte.
// prints one line per text and mode: "TEXT MODE N ID..." (N ids), "TEXT MODE error" when
// llama_tokenize throws or fails, "TEXT MODE abort" when it aborts the process
// (GGML_ASSERT); "load error" alone when the model does not load.
// Texts run in a child process, so that an abort costs one answer, not the run.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "ggml-backend.h"
#include "llama.h"

static void quiet(ggml_log_level, const char*, void*) {}

static void run(const llama_vocab* vocab, const std::vector<std::string>& texts, size_t first, int first_mode, int fd) {
  std::vector<llama_token> ids;
  for (size_t i = first; i < texts.size(); ++i) {
    for (int mode = i == first ? first_mode : 0; mode < 3; ++mode) {
      // announce the case first: if it aborts, the parent knows which one did
      dprintf(fd, "%zu %d begin\n", i, mode);
      const std::string& t = texts[i];
      ids.assign(t.size() * 2 + 16, 0);
      std::string line = std::to_string(i) + " " + std::to_string(mode) + " ";
      try {
        const int n = llama_tokenize(vocab, t.data(), int32_t(t.size()), ids.data(), int32_t(ids.size()), mode == 2,
                                     mode >= 1);
        if (n < 0) {
          line += "error";
        } else {
          line += std::to_string(n);
          for (int k = 0; k < n; ++k) line += " " + std::to_string(ids[k]);
        }
      } catch (...) {
        line += "error";
      }
      line += "\n";
      if (write(fd, line.data(), line.size()) != ssize_t(line.size())) _exit(3);
    }
  }
  _exit(0);
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s MODEL TEXTS\n", argv[0]);
    return 2;
  }
  llama_log_set(quiet, nullptr);
  if (const char* bindir = getenv("NLC_BINDIR")) ggml_backend_load_all_from_path(bindir);
  else ggml_backend_load_all();
  llama_backend_init();

  std::ifstream in(argv[2], std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string all = ss.str();
  std::vector<std::string> texts;
  for (size_t pos = 0; pos < all.size();) {
    const size_t end = all.find('\0', pos);
    if (end == std::string::npos) break;
    texts.push_back(all.substr(pos, end - pos));
    pos = end + 1;
  }

  auto mp = llama_model_default_params();
  mp.vocab_only = true;
  llama_model* model = nullptr;
  try {
    model = llama_model_load_from_file(argv[1], mp);
  } catch (...) {
  }
  if (!model) {
    printf("load error\n");
    return 0;
  }
  const llama_vocab* vocab = llama_model_get_vocab(model);
  fflush(stdout);

  size_t next = 0;
  int next_mode = 0;
  while (next < texts.size()) {
    int p[2];
    if (pipe(p) != 0) return 1;
    fflush(stdout);
    const pid_t pid = fork();
    if (pid == 0) {
      close(p[0]);
      run(vocab, texts, next, next_mode, p[1]);
    }
    close(p[1]);
    FILE* r = fdopen(p[0], "r");
    char buf[1 << 16];
    std::string pending;  // the "begin" line of a case not finished yet
    size_t cur = next;
    int cur_mode = next_mode;
    std::string line;
    while (fgets(buf, sizeof buf, r)) {
      line += buf;
      if (line.empty() || line.back() != '\n') continue;
      size_t i = 0;
      int m = 0;
      char word[16] = {0};
      if (sscanf(line.c_str(), "%zu %d %15s", &i, &m, word) == 3 && strcmp(word, "begin") == 0) {
        cur = i, cur_mode = m;
        pending = line;
      } else {
        fputs(line.c_str(), stdout);
        pending.clear();
      }
      line.clear();
    }
    fclose(r);
    int status = 0;
    waitpid(pid, &status, 0);
    if (pending.empty()) break;  // finished every case
    printf("%zu %d abort\n", cur, cur_mode);
    next = cur_mode == 2 ? cur + 1 : cur;
    next_mode = cur_mode == 2 ? 0 : cur_mode + 1;
  }
  llama_model_free(model);
  llama_backend_free();
  return 0;
}
