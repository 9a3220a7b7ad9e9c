// The DP core's thread pool (satdt/solvers/dp/core/pool.h) hammered without Python: many runs
// back to back of a few tiny tasks each, their number changing from run to run, on 2 and 3
// threads, through run and run_idle, with threads reserved now and then. Each run checks that
// every task in [0, n) ran exactly once, on a thread below active(). A late worker that claimed
// a task of the next run with the old run's job or task count (the danger of a caller that does
// not wait for the workers to wake) shows as an index out of range, or a task run twice or never.
// Most informative on one core (`taskset -c 0`), where a worker is preempted anywhere.
//
// Build (tests/test_dp_core_cpp.py does this): c++ -O2 -std=c++17 -pthread
//   -I satdt/solvers/dp/core tests/core/test_pool.cpp
// Argument: the number of runs per setting (default 100000). Exit status 0 when every check
// passed; the last line counts them.
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <thread>
#include <vector>

#include "pool.h"

namespace {

long long failures = 0;

// one run of n tasks on the pool: each task counts itself in its slot and spins a little, and,
// when `yield`, first gives up its core (on one core: the other thread runs there and then)
template <bool Idle>
void one_run(satdt_dp::Pool& pool, int n, int work, bool yield, long long& idles) {
    std::vector<std::atomic<int>> hits(static_cast<size_t>(n));
    std::atomic<int> bad{0};
    const int active = pool.active();
    auto task = [&](int i, int t) {
        if (i < 0 || i >= n || t < 0 || t >= active) {
            bad.fetch_add(1);
            return;
        }
        if (yield) std::this_thread::yield();
        volatile int sink = 0;
        for (int k = 0; k < work; ++k) sink = sink + k;
        hits[static_cast<size_t>(i)].fetch_add(1);
    };
    if (Idle)
        pool.run_idle(n, task, [&] { ++idles; });
    else
        pool.run(n, task);
    int wrong = bad.load();
    for (auto& h : hits) wrong += h.load() != 1;
    failures += wrong != 0;
}

long long hammer(int threads, long long runs, unsigned seed) {
    satdt_dp::Pool pool(threads);
    pool.adaptive = false;
    std::mt19937 rng(seed);
    long long idles = 0;
    for (long long r = 0; r < runs; ++r) {
        pool.reserve = threads > 2 && rng() % 8 == 0 ? 1 : 0;
        const int n = 2 + static_cast<int>(rng() % 5), work = rng() % 2 ? 0 : static_cast<int>(rng() % 4000);
        const bool yield = rng() % 4 == 0;
        if (rng() % 4 == 0)
            one_run<true>(pool, n, work, yield, idles);
        else
            one_run<false>(pool, n, work, yield, idles);
    }
    return pool.worker_tasks();
}

}  // namespace

int main(int argc, char** argv) {
    const long long runs = argc > 1 ? std::atoll(argv[1]) : 100000;
    long long helped = 0;
    for (int threads : {2, 3}) helped += hammer(threads, runs, 7u + static_cast<unsigned>(threads));
    std::printf("pool test: %lld runs, %lld tasks on the workers, %lld failed\n", 2 * runs, helped, failures);
    return failures == 0 ? 0 : 1;
}
