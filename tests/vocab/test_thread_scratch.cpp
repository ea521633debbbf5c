// thread_scratch (thread_scratch.h): one scratch per thread, cleared when another model
// instance takes it (by its clear(), keeping its buffers, where it has one); inside a side_scratch_scope (a vocabulary finding its newline token
// at load) a second one is used, so that a load does not clear (free, inside the load)
// what another vocabulary's tokenize calls left in the main one.
#include <gtest/gtest.h>

#include <string>

#include "vocab/runtime/thread_scratch.h"

using namespace gguf::vocab_detail;

namespace {
struct test_scratch {
  std::string text;
};
}  // namespace

TEST(ThreadScratch, AnotherInstanceClearsIt) {
  const uint64_t a = next_model_instance(), b = next_model_instance();
  thread_scratch<test_scratch>(a).text = "filled by a";
  EXPECT_EQ(thread_scratch<test_scratch>(a).text, "filled by a");
  EXPECT_EQ(thread_scratch<test_scratch>(b).text, "");
  EXPECT_EQ(thread_scratch<test_scratch>(a).text, "");
}

namespace {
// A Scratch with clear(): another instance empties what it holds and keeps the buffer.
struct clearing_scratch {
  std::string text;
  int clears = 0;
  void clear() noexcept {
    text.clear();
    ++clears;
  }
};
}  // namespace

TEST(ThreadScratch, AnotherInstanceCallsClearAndKeepsTheBuffer) {
  const uint64_t a = next_model_instance(), b = next_model_instance();
  clearing_scratch& s = thread_scratch<clearing_scratch>(a);
  s.text.assign(1000, 'a');
  const size_t capacity = s.text.capacity();
  const int clears = s.clears;
  EXPECT_EQ(thread_scratch<clearing_scratch>(a).clears, clears);  // the same instance: kept
  clearing_scratch& t = thread_scratch<clearing_scratch>(b);
  EXPECT_EQ(&t, &s);
  EXPECT_EQ(t.text, "");
  EXPECT_EQ(t.clears, clears + 1);
  EXPECT_EQ(t.text.capacity(), capacity);
}

TEST(ThreadScratch, TheSideScopeLeavesTheMainScratchAsItIs) {
  const uint64_t a = next_model_instance(), b = next_model_instance();
  test_scratch* main_a = &thread_scratch<test_scratch>(a);
  main_a->text = "filled by a";
  {
    const side_scratch_scope side;
    test_scratch& s = thread_scratch<test_scratch>(b);
    EXPECT_NE(&s, main_a);
    EXPECT_EQ(s.text, "");
    s.text = "newline run of b";
    {
      const side_scratch_scope nested;  // scopes nest
      EXPECT_EQ(thread_scratch<test_scratch>(b).text, "newline run of b");
    }
    EXPECT_EQ(&thread_scratch<test_scratch>(b), &s);
  }
  EXPECT_EQ(&thread_scratch<test_scratch>(a), main_a);
  EXPECT_EQ(main_a->text, "filled by a");
}
