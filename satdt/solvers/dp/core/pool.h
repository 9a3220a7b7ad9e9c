// satdt.solvers.dp core: a persistent pool of worker threads for the search's big kernels (the
// chains of a depth-two scan's root, the rows of a pair solve).
//
// run(n, f) calls f(task, thread) for every task in [0, n), the calling thread taking part as
// thread 0, and returns when all are done: it waits for the tasks, never for a worker that has not
// started one (on a loaded machine a worker may get a core only after the caller ran them all).
// Tasks are claimed dynamically (an atomic counter tagged with the run's generation, see claims_), so
// a task must write only to its own slot (or to its thread's scratch) and the caller combines
// the slots in a fixed order: results never depend on which thread ran which task. Tasks must
// not throw and must not call the host: the search's clock and the host's poll stay on the
// calling thread (which holds the right to take the GIL), between two run calls.
//
// Workers spin briefly after a run (a root search dispatches one run per root, often less than a
// millisecond apart), then sleep on a condition variable. They are started by the first run
// handed to them: a search whose kernels all stay on the calling thread (a small depth-two
// problem) never starts a thread (nor has one spin beside it).
#pragma once

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace satdt_dp {

class Pool {
  public:
    explicit Pool(int threads) : threads_(std::max(1, threads)) {}
    ~Pool() {
        if (workers_.empty()) return;
        {
            std::lock_guard<std::mutex> lk(mu_);
            quit_.store(true, std::memory_order_relaxed);
            publish(0);
        }
        cv_.notify_all();
        for (auto& w : workers_) w.join();
    }
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;

    int size() const { return threads_; }
    // the threads that take part in a run: all but `reserve`
    int active() const { return std::max(1, size() - reserve); }
    bool adaptive = true;  // false: engaged() always (tests)
    // threads left to another search running at the same time (Search::set_solo: the anytime
    // schedule's two lanes): the workers numbered active() and above sit out every run, so that
    // with two threads every kernel and wave runs on the calling thread alone
    int reserve = 0;
    // whether the next kernel should go to the workers: not while they keep missing the runs
    // (a loaded machine where they rarely get a core: 64 runs in a row whose every task the
    // caller ran itself), then for the next 512 kernels the caller works alone and tries again.
    // Which thread runs a task never changes a result (see the top), so neither does this.
    bool engaged() {
        if (active() <= 1) return false;
        if (!adaptive) return true;
        if (skip_ > 0) {
            --skip_;
            return false;
        }
        return true;
    }
    // runs handed to the workers, and tasks the workers ran (the rest ran on the caller)
    long long runs() const { return runs_; }
    long long worker_tasks() const { return worker_tasks_.load(std::memory_order_relaxed); }

    template <class F>
    void run(int n, F&& f) {
        if (on_caller(n, f)) return;
        std::function<void(int, int)> job = [&f](int i, int t) { f(i, t); };
        launch(n, job);
        for (int spin = 0; !all_done(n); ++spin)
            if (spin > 4000) std::this_thread::yield();
        const long long helped = worker_tasks_.load(std::memory_order_relaxed);
        missed_ = helped == helped_before_ ? missed_ + 1 : 0;
        helped_before_ = helped;
        if (missed_ >= 64) {
            missed_ = 0;
            skip_ = 512;
        }
    }

    // run(n, f) for the top node's waves of roots (waves.cpp): tasks of any length, so the
    // caller, once out of tasks, does not spin while the workers finish theirs: it calls idle()
    // (its clock and the host: the calling thread's duties) and sleeps 0.1 ms in turn. idle must
    // not throw.
    template <class F, class G>
    void run_idle(int n, F&& f, G&& idle) {
        if (on_caller(n, f)) return;
        std::function<void(int, int)> job = [&f](int i, int t) { f(i, t); };
        launch(n, job);
        for (int spin = 0; !all_done(n); ++spin) {
            if (spin < 2000) continue;
            idle();
            std::this_thread::sleep_for(std::chrono::microseconds(100));
        }
    }

  private:
    // n <= 1 tasks, or no workers: run them on the calling thread (true), else false
    template <class F>
    bool on_caller(int n, F& f) {
        if (n > 1 && threads_ > 1) return false;
        for (int i = 0; i < n; ++i) f(i, 0);
        return true;
    }

    // The run's state is one 64-bit atomic, claims_ = generation << 32 | tasks not yet claimed,
    // so that a claim belongs to one run: a worker claims by compare-exchange from the value it
    // loaded, which fails once the caller has published the next run (a new generation). A late
    // worker therefore never takes a task of the next run for the old job. After a successful
    // claim the task is not done, so the caller is still inside this run and job_, ntasks_ (and
    // active_) are this run's: the claim's acquire pairs with publish's release.
    static constexpr unsigned long long kLow = 0xffffffffull;
    static unsigned gen_of(unsigned long long c) { return static_cast<unsigned>(c >> 32); }

    // a new generation with n tasks to claim (the caller, under mu_ for the workers' wait)
    void publish(int n) {
        const unsigned long long g = gen_of(claims_.load(std::memory_order_relaxed)) + 1u;
        claims_.store((g << 32) | static_cast<unsigned>(n), std::memory_order_release);
    }

    // hand the n tasks of job to the workers (a new generation; started by the first) and take
    // the caller's share
    void launch(int n, std::function<void(int, int)>& job) {
        if (workers_.empty())
            for (int t = 1; t < threads_; ++t) workers_.emplace_back([this, t] { work(t); });
        ++runs_;
        // no worker reads these now: the previous run's tasks are all done, so every claim on
        // its generation fails (none left) and the next claims wait for publish
        job_ = &job;
        ntasks_ = n;
        active_.store(active(), std::memory_order_relaxed);
        done_.store(0, std::memory_order_relaxed);
        {
            std::lock_guard<std::mutex> lk(mu_);
            publish(n);
        }
        cv_.notify_all();
        drain(0, claims_.load(std::memory_order_acquire));
    }

    // all n tasks of the current run done (their writes visible to the caller)
    bool all_done(int n) const { return done_.load(std::memory_order_acquire) == n; }

    // run the tasks thread t claims in the generation of c (a value of claims_ it loaded)
    void drain(int t, unsigned long long c) {
        const unsigned g = gen_of(c);
        while (gen_of(c) == g && (c & kLow) != 0) {
            if (!claims_.compare_exchange_weak(c, c - 1, std::memory_order_acquire, std::memory_order_acquire))
                continue;  // c reloaded: another claim, or the next run (the loop's test)
            const int i = ntasks_ - static_cast<int>(c & kLow);  // in order: 0, 1, ..
            (*job_)(i, t);
            if (t > 0) worker_tasks_.fetch_add(1, std::memory_order_relaxed);
            done_.fetch_add(1, std::memory_order_release);  // after this, no touch of the run's job
            c = claims_.load(std::memory_order_acquire);
        }
    }

    void work(int t) {
        unsigned seen = 0;
        while (true) {
            // spin a little for the next run, then sleep
            unsigned long long c = claims_.load(std::memory_order_acquire);
            for (int spin = 0; gen_of(c) == seen && spin < 20000; ++spin) {
                if ((spin & 255) == 255) std::this_thread::yield();
                c = claims_.load(std::memory_order_acquire);
            }
            if (gen_of(c) == seen) {
                std::unique_lock<std::mutex> lk(mu_);
                cv_.wait(lk, [&] { return gen_of(claims_.load(std::memory_order_acquire)) != seen; });
                c = claims_.load(std::memory_order_acquire);
            }
            seen = gen_of(c);
            if (quit_.load(std::memory_order_relaxed)) return;
            // active_ is this generation's or a later one's (stored before its publish); if later,
            // this run is over and drain claims nothing
            if (t < active_.load(std::memory_order_relaxed)) drain(t, c);
        }
    }

    const int threads_;                 // the calling thread and threads_ - 1 workers
    std::vector<std::thread> workers_;  // empty until the first run handed to them
    std::mutex mu_;
    std::condition_variable cv_;
    std::atomic<unsigned long long> claims_{0};  // generation << 32 | tasks left to claim
    std::atomic<int> done_{0};                     // tasks of the current run done
    const std::function<void(int, int)>* job_ = nullptr;  // read by a worker only after a claim
    int ntasks_ = 0;                                       // (the same)
    std::atomic<int> active_{1};  // active() at the run's launch: workers numbered above sit out
    // set before the last publish, seen with it; atomic: a worker may read it while the caller,
    // no longer waiting for the worker, destroys the pool
    std::atomic<bool> quit_{false};
    long long runs_ = 0;
    long long helped_before_ = 0;  // worker_tasks_ after the previous run
    int missed_ = 0, skip_ = 0;    // see engaged
    std::atomic<long long> worker_tasks_{0};
};

}  // namespace satdt_dp
