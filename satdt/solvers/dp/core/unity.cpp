// satdt.solvers.dp core: the search's components (search.h lists them) compiled as one
// translation unit, as the single-file core was, so that the compiler inlines across them (the
// recursion, the root search, the depth-two solvers and the counting call each other per node).
// Measured against separate units, same flags, CPU time of bmi at depth 5 (28,530 nodes, min of
// 6 runs, 3 rounds): single-file core 0.75-0.77 s, separate units 0.80-0.83 s, this 0.77-0.79 s.
// Each component also compiles on its own (tests/core builds them one by one).

#include "search.cpp"
#include "roots.cpp"
#include "waves.cpp"
#include "view.cpp"
#include "depth2.cpp"
#include "scan.cpp"
#include "greedy.cpp"
#include "witness.cpp"  // proof witness (issue 23): the box questions, not part of the search
