// satdt.solvers.dp core: what the search asks of its caller while it runs. The search knows no
// Python: the bindings (bindings.cpp) implement Host with Python's signals, the progress
// callback and the GIL; a C++ caller passes its own Host or none.
#pragma once

#include "types.h"

namespace satdt_dp {

// A progress report of the top-level search.
struct Report {
    double elapsed;  // seconds since the call started
    bool has_best;   // a top-level tree was found
    i64 best;        // its cost
    bool has_bound;  // the top-level roots' bounds are known
    i64 bound;       // no tree costs less than this
    i64 nodes;       // search nodes so far
};

class Host {
  public:
    virtual ~Host() = default;
    // whether the host wants progress reports (else poll always gets nullptr)
    virtual bool reports() const { return false; }
    // called every 50 ms of a call (solve, greedy), with a report when one is due (every
    // `interval` seconds and soon after each new top-level incumbent), else nullptr;
    // false stops the call (it returns unfinished, marked interrupted)
    virtual bool poll(const Report* report) = 0;
};

}  // namespace satdt_dp
