// The thread pool behind threads{n} (eval/threads.hpp): every chunk of a job runs once, whether
// its workers are still spinning from the last job or asleep; jobs from several caller threads
// at once each run whole.
#define BOOST_TEST_MODULE eval_pool
#include <boost/test/unit_test.hpp>

#include <lazyview/eval/threads.hpp>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

namespace lv = lazyview;
using lv::index_t;

namespace {

/// Runs one job of `total` over `parts` and returns how many times each index ran; `worker`
/// counts the chunks that a thread other than the caller ran.
std::vector<int> run_job(index_t total, unsigned parts, int& worker, std::chrono::microseconds caller_work = {}) {
  std::vector<std::atomic<int>> seen(static_cast<std::size_t>(total));
  const auto caller = std::this_thread::get_id();
  std::atomic<int> others{0};
  lv::detail::parallel_for(total, parts, [&](index_t a, index_t b) {
    const bool mine = std::this_thread::get_id() == caller;
    if (!mine) ++others;
    // The caller's own chunk (chunk 0) takes long enough for a woken worker to claim its
    // chunk before the caller looks for unclaimed ones (it takes them over after 100 us).
    if (mine && a == 0 && caller_work.count() > 0) std::this_thread::sleep_for(caller_work);
    for (index_t i = a; i < b; ++i) ++seen[static_cast<std::size_t>(i)];
  });
  worker += others.load();
  std::vector<int> out;
  for (auto& s : seen) out.push_back(s.load());
  return out;
}

int wrong_counts(const std::vector<int>& v) {
  int bad = 0;
  for (int c : v) bad += c != 1;
  return bad;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(thread_pool)

BOOST_AUTO_TEST_CASE(every_chunk_once_back_to_back) {
  // Jobs that follow each other at once find the workers spinning (no wake-up call).
  int worker = 0;
  for (unsigned parts : {2u, 3u, 4u, 7u})
    for (index_t total : {index_t{2}, index_t{7}, index_t{64}, index_t{1001}})
      for (int rep = 0; rep < 50; ++rep)
        BOOST_TEST(wrong_counts(run_job(total, parts, worker)) == 0,
                   "total " << total << " parts " << parts << " rep " << rep);
}

BOOST_AUTO_TEST_CASE(workers_wake_after_sleeping) {
  // Between these jobs the workers outlast their spin and sleep; each job must wake one. A
  // lost wake-up does not hang (the caller takes unclaimed chunks over), so the test counts the
  // chunks that workers ran: none means they never woke.
  int worker = 0;
  for (int rep = 0; rep < 12; ++rep) {
    std::this_thread::sleep_for(std::chrono::microseconds(3 * LAZYVIEW_POOL_SPIN_US + 2000));
    BOOST_TEST(wrong_counts(run_job(64, 2, worker, std::chrono::milliseconds(5))) == 0, "rep " << rep);
  }
  BOOST_TEST(worker > 0, "no chunk ran on a worker after the workers slept");
}

BOOST_AUTO_TEST_CASE(jobs_from_several_callers) {
  // Callers' jobs are serialised; each sees all of its own chunks run once.
  std::atomic<int> bad{0};
  std::vector<std::thread> callers;
  for (int t = 0; t < 4; ++t)
    callers.emplace_back([&, t] {
      int worker = 0;
      for (int rep = 0; rep < 200; ++rep) {
        if (rep % 50 == 0) std::this_thread::sleep_for(std::chrono::microseconds(3 * LAZYVIEW_POOL_SPIN_US));
        bad += wrong_counts(run_job(17 + t, 2 + static_cast<unsigned>(t % 2), worker));
      }
    });
  for (auto& c : callers) c.join();
  BOOST_TEST(bad.load() == 0);
}

BOOST_AUTO_TEST_SUITE_END()
