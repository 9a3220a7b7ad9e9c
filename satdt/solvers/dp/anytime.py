"""Good trees at any time limit: the anytime schedule of the exact DP search.

The complete search (:meth:`CoreSearch.run` with ``width=0``) proves optima, but on depth 4-6
problems with thousands of thresholds it may not finish its first root within a minute. Under a
time limit :func:`anytime_search` interleaves it with two heuristic phases that only ever make
the incumbent better, and feed the complete search the tighter upper bound they find:

0. **The greedy tree's last splits re-solved exactly** (local improvement, below, with subtrees of
   depth one: milliseconds): CART chose them by Gini, not for the fewest errors.
1. **The complete search first**, for a slice of the time (``FIRST_SLICE`` of the limit, at least
   0.25 s): every cell it proves within the slice costs nothing extra. Past a 60 s limit the slice
   runs in pieces of ``FIRST_SLICE_MAX`` seconds, each of which must rule out a top-level root
   for the next to follow (:func:`_first_slice`): a search whose first roots take minutes leaves
   the time to the phases that prove such cells sooner, instead of a tenth of the limit. It gets up to
   ``NEARLY_DONE_SLICES`` more slices while it is nearly done (it has evaluated more top-level
   roots than are left that could beat the incumbent, or its proven bound is within
   ``NEARLY_DONE_GAP``, 1 %, of the incumbent). Whenever the bound is that close, the complete
   search takes all the time left: no heuristic round could gain more than the gap.
2. **The restricted search** (``width = w``): at every node of depth >= 3 only the tests of CART's
   tree of depth ``w`` grown on the node's rows are tried (the candidate tests of DPDT [9]), and
   every node of depth <= 2 is solved exactly (the depth-two solvers of the complete search). It is
   the best tree of a space that grows with ``w`` (``w = 1``: CART's tests with optimal depth-two
   subtrees; the greedy tree is in it), searched with the same bounds and the incumbent as upper
   bound. Its answers live in a memo of their own; the exact memo is only read.
3. **Local improvement** (DT-SLIM, Schidler and Szeider): every subtree of depth <= 3 of the
   incumbent is re-solved *exactly* on the rows that reach it, with its own cost as upper bound,
   and replaced when a better one exists. Its answers are exact, so they stay in the exact memo,
   where the complete search finds them again. At depth <= 3 the subtree is the whole tree: when
   that solve finishes, it is the complete search's proof (the incumbent is optimal).
   **Threshold shifts** (depth > ``LOCAL_DEPTH``, at least half of a round, in the rounds that
   follow one where the restricted searches stalled, finding nothing better, until they are
   exhausted; never at the complete search's expense: its share of the time is that of the
   round without them): at every node of the incumbent whose subtree has depth
   ``LOCAL_DEPTH + 1``, the tests of the same threshold chain within ``SHIFT_WINDOW`` thresholds
   of its own are tried with exact subtrees of depth ``LOCAL_DEPTH`` below (the complete search
   restricted to those roots, on the node's rows). Local improvement keeps every test above the
   subtrees it re-solves; this moves them. On raisin depth 4 it finds the optimum (59, the
   root's threshold 26 places from the incumbent's) that the complete search meets last.
   **Re-rooting** (:meth:`_State.reroot`; depth > ``LOCAL_DEPTH``, in rounds after one that
   found nothing better or whose shifts were all spent): at the incumbent's nodes of depth
   budget ``LOCAL_DEPTH + 1`` and ``+ 2``, each test of the ``REROOT_LEVELS`` levels below is
   tried as the node's test with exact subtrees: a test of another feature brought up.
4. **The complete search again**, resumed with the incumbent as upper bound for twice the time
   the heuristic round took: its top-level root search continues where the last slice stopped
   it (the roots' bounds, the roots already evaluated and the best root are kept in the core,
   ``TopResume``), and its memo keeps every subproblem already solved, so nothing is lost
   between slices (raisin depth 3 cut every 0.4 s: 2.9 s, against 2.7 s uncut and 6.8 s when
   every slice started the roots over); then a heuristic round of twice the length, resuming
   the width where the last one stopped (``WIDTHS``), and so on, until the complete search
   finishes (OPTIMAL) or time is up.
   After the first slice the complete search gets about two thirds of the time, four fifths while
   the heuristic rounds find nothing better (their rounds then stop growing; a wider restricted
   search cut by its round resumes in the next), and half while the first restricted search is
   cut by its round before its end (the rounds grow until it ends: on a loaded machine, or a
   large set, its first tree is the one worth waiting for).

**Two lanes** (a search with two threads or more, ``n_jobs``, at depth > ``LOCAL_DEPTH``):
after the first slice (and its extensions), steps 2-4 do not share the time but the cores
(:func:`_two_lanes`). The complete search goes on in slices on all the threads but one (with
two: the calling thread alone); that one runs the heuristic rounds (restricted searches of
growing width, local improvement of each better tree, the threshold shifts in every round once
the first restricted tree is in hand, re-rooting once those stall) on a twin of the search (same
problem, a memo of its own). Both read and improve one
incumbent; a complete slice ends as soon as the other lane finds a better tree, so that the next
slice prunes with it. After a round that found nothing better the heuristic lane pauses for the
round's time times the proven bound's share of the incumbent (not at all while the bound is 0);
it stops when it has nothing left to try (its threshold shifts end once their window spans every
chain: trying every test is the complete lane's work), or when the bound is within
``NEARLY_DONE_GAP`` of the incumbent. Meanwhile the complete search has all the threads.
**A proof in reach.** Once the complete lane's bound has covered ``DEMOTE_PROGRESS`` (30 %) of
the way from the floor (the cost no tree can beat: the rows' leaf conflicts and one leaf) to the
incumbent, *and* at the pace it has ruled out top-level roots since the lanes began it would rule
out the live ones left within the time left (:meth:`_State.proof_in_reach`), the heuristic lane's
thread is *demoted* to the lowest priority (nice 19; Linux, elsewhere the pauses above remain):
from then on the complete search runs on all the threads and the heuristics on the time they
leave idle, instead of a core of their own (a user's thread cannot raise its priority again, so
this is for good). A core for the heuristics costs such a proof its second thread: wilt depth 4
at a 10 s limit was proven at 6-8 s, against 2.9 s with no limit; demoted, at 3-4 s. Both
conditions matter: on raisin depth 4 the bound covers half the way within 10 s while the proof
takes minutes, and the heuristic lane's threshold shift finds the optimum (59) there; demoted on
the bound alone it did not within 30 s. On the large continuous sets the bound stays at the
floor and nothing changes.
**The rows' bound** (:mod:`satdt.solvers.dp.rows_bound`): while the complete search's own bound is
still at the floor and the incumbent is within ``ROWS_MAX_GAP`` errors of it, every other turn of
the complete search (in both schedules; fewer once its steps are cut by their time:
:class:`_RowsTurns`) goes to incremental example addition on a sample of the rows
(:meth:`_State.rows_bound`, :meth:`_State.rows_due`): the sample's optimum, proven exactly, bounds
the whole problem's optimum, and the rows its tree gets wrong join the sample. It proves optima
whose tree is nearly consistent with the rows long before the complete search covers the top
node's tests (occupancy depth 6: 0 errors proven in 5.4 s at a 10 s limit, 2 [0] before; bidding
depth 5: 1 error proven at 58 s of a 60 s limit, 1 [0] before) and gives the first bound above the
floor on others (occupancy depth 5: 9 [8] at 60 s). Far from the floor (noisy data: magic depth
4, 2295 errors) a few hundred rows need a few dozen errors at most, and the complete search keeps
its time.

The search stays complete: given time, the complete search runs to its end, and the cells it
proves within the first slice pay nothing for the anytime phases.

**Bound.** The complete search and the rows' bound prove bounds. At a time limit the complete
search's top-level root search
knows, for every root test ``j``, lower bounds on both children (their leaf-conflict errors and
leaf costs, the similarity bound of every child solved [2, 3], and the optimum of every child
proven); no tree costs less than ``min(leaf, min_j lbL[j] + lbR[j])``. The rows' bound's is the
optimum on a subset of the rows (no tree costs less on fewer rows). The reported ``bound`` is
the largest of these over the slices and steps (each is valid for the whole problem), never above
the incumbent. A slice ended early (its time cap, the deadline, or the other lane's better tree) keeps
its top-level root search for the next one, bounds included (``TopResume`` in the core).

References are numbered as in ``satdt/REFERENCES.md``.
"""

from __future__ import annotations

import copy
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...deadline import Deadline
from ...progress import ProgressReporter
from ...tree import Node
from .rows_bound import RowsBound
from .search import CoreSearch, SearchBase, SearchOutcome

__all__ = ["anytime_search", "AnytimeOutcome", "FIRST_SLICE", "LOCAL_DEPTH", "WIDTHS"]

FIRST_SLICE = 0.1     # share of the time limit the complete search gets before any heuristic phase
# seconds: the longest first slice (a 60 s limit's); past it the heuristic phases start as at 60 s
FIRST_SLICE_MAX = 6.0
MIN_SLICE = 0.25      # seconds: the shortest complete slice
NEARLY_DONE_SLICES = 2  # first slices more for a complete search that is nearly done
NEARLY_DONE_GAP = 0.01  # the gap (incumbent - proven bound) / incumbent under which it is nearly done
LOCAL_DEPTH = 3       # local improvement re-solves subtrees of at most this depth exactly
SHIFT_WINDOW = 32     # thresholds on each side of a test that the threshold shift tries
REROOT_LEVELS = 3     # levels of the incumbent below a node whose tests re-rooting tries at that node
REROOT_MAX_DEPTH = LOCAL_DEPTH + 2  # depths at which the schedule re-roots (the root, depths 4-5: at depth 6
# occupancy's proof took 26 s against 17 s with it, two pairs, and no depth-6 cell gained)
REROOT_MAX_SHARE = 0.5  # the heuristic lane re-roots only while the proven bound is below this share of the incumbent
# the share of the way from the floor (no tree costs less) to the incumbent that the complete lane's
# bound has covered, from which on the heuristic lane's thread runs at the lowest priority (Linux)
DEMOTE_PROGRESS = 0.3
# the rows' bound (satdt/solvers/dp/rows_bound.py) shares the complete lane's time while that lane's
# own bound is at the floor and the incumbent is within this many errors (q each) of it: where a
# sample of a few hundred rows can need as many errors as the incumbent makes
ROWS_MAX_GAP = 32
MIN_ROWS_STEP = 0.02  # seconds: the shortest step of the rows' bound
ROWS_STEP_ROOM = 1.5  # a step after a turn's first needs this many times the last step's time left
# candidate tests per node of the restricted search, round after round (about x1.45 each: the
# search's cost grows about as width ** (depth - 2))
WIDTHS = (1, 2, 3, 5, 7, 10, 15, 22, 31, 46, 68, 100)


@dataclass
class AnytimeOutcome:
    """The best tree over the binary columns (``node``, ``cost``), whether it is proven optimal,
    the best proven lower bound, which phase found the tree, and the phases' counters."""

    node: Node
    cost: float
    proven: bool
    bound: float | None
    source: str
    stats: dict = field(default_factory=dict)


def anytime_search(search: SearchBase, d: int, node: Node, cost: float, source: str,
                   reporter: ProgressReporter | None = None,
                   to_objective: Callable[[float], float] = float,
                   unproven: Callable[[], None] | None = None) -> AnytimeOutcome:
    """Improve the incumbent ``node`` (cost ``cost``) of depth <= ``d`` until the search's deadline,
    proving it optimal if the complete search finishes (see the module docstring). ``unproven`` is
    called once the first slice (and its extensions) ended without a proof.

    Without a deadline, or with the numpy reference search, this is the complete search alone.
    """
    deadline = search.deadline
    state = _State(search, d, _Incumbent(node, cost, source, reporter, to_objective))
    left = deadline.remaining()
    if left is None or not isinstance(search, CoreSearch):
        state.complete(None)
        return state.outcome()
    # the greedy tree's last splits chosen for the fewest errors, not by Gini (milliseconds): CART's
    # tree is rarely left as it is, even when the machine is too loaded for anything else
    state.local(MIN_SLICE, depth=1)
    if state.proven:  # depth 1: that was the whole problem
        return state.outcome()
    slice_s = max(MIN_SLICE, min(FIRST_SLICE * left, FIRST_SLICE_MAX))
    if _first_slice(state, slice_s, deadline.elapsed() + FIRST_SLICE * left):
        return state.outcome()
    # nearly done: the roots it evaluated outnumber those left that could beat the incumbent; it
    # goes on (at most NEARLY_DONE_SLICES more slices) rather than pay for a heuristic round
    for _ in range(NEARLY_DONE_SLICES):
        if not state.nearly_done() or deadline.expired():
            break
        if state.complete(slice_s):
            return state.outcome()
    if unproven is not None:
        unproven()
    # two threads or more: the two lanes, the heuristics on one thread beside the complete search
    if d > LOCAL_DEPTH and isinstance(search, CoreSearch) and search.threads >= 2:
        return _two_lanes(state, slice_s)
    widths = _Widths()  # once exhausted, the complete search takes the rest
    cap = max(MIN_SLICE, slice_s / 2)
    stalled = False  # the last round's restricted searches had their first tree and found nothing better
    turn = 0  # rounds given to the shifts or re-rooting so far
    floor = _floor(search)
    rows = _RowsTurns(search, d)
    while not deadline.expired():
        # the incumbent's threshold shifts, in the rounds where the restricted searches stall; once
        # those are exhausted the complete search takes the rest, as it did without the shifts (on
        # raisin d4 at a 600 s limit, shifts after that point cost the proof 15 %: 115 s against
        # ConTree's 100 s, one pair)
        shifting = d > LOCAL_DEPTH and not state.shift_done and stalled and not widths.exhausted
        # re-rooting (see _heuristic_rounds) takes the shifts' place every other such round, and
        # every one once they are spent
        rerooting = LOCAL_DEPTH < d <= REROOT_MAX_DEPTH and stalled and not state.inc.reroot_done \
            and not widths.exhausted \
            and (not shifting or turn % 2 == 1)
        shifting = shifting and not rerooting
        turn += shifting or rerooting
        if state.close() or widths.exhausted:
            state.complete(deadline.remaining())
            break
        # a heuristic round of at most `cap` seconds: restricted searches of growing width, each
        # followed by local improvement of the tree it found, then (depth > LOCAL_DEPTH, once they
        # stall) the threshold shifts of the incumbent's upper tests, with at least half the round
        start = deadline.elapsed()
        gained, cut = widths.round(state, cap / 2 if shifting or rerooting else cap, cap, start)
        if state.proven:  # local improvement re-solved the whole tree (depth <= LOCAL_DEPTH)
            return state.outcome()
        stalled = widths.first_tree and not gained
        shift_cut = False
        if (shifting or rerooting) and not deadline.expired():
            before = state.cost
            move = state.shift if shifting else state.reroot
            shift_cut = not move(max(MIN_SLICE, cap - (deadline.elapsed() - start), cap / 2))
            gained = gained or state.cost < before
        if deadline.expired():
            break
        # the complete search gets twice the round's time (about 2/3 of the time after the first
        # slice), four times when the round found nothing better (about 4/5: the heuristics stall
        # where the complete search is about to prove the optimum), the round's time while the
        # first restricted search is cut before its end (its first tree has not had its chance yet;
        # a wider one cut without a better tree is a stall: it resumes next round, memo kept). The
        # shifts never lower that share: the cells the complete search proves keep their time.
        waiting = cut and not gained and not widths.first_tree
        share = 1 if waiting else 2 if gained else 4
        slice_len = max(MIN_SLICE, share * (deadline.elapsed() - start))
        if rows.due(state, floor):  # this turn of the complete search to the rows' bound
            if rows.run(state, slice_len):
                break
        elif state.complete(slice_len):
            break
        if gained or waiting or shift_cut:  # a cut shift resumes next round, with twice the time
            cap *= 2
    return state.outcome()


def _first_slice(state: "_State", slice_s: float, end: float) -> bool:
    """The complete search's first slice, until ``end`` on the deadline's clock (``FIRST_SLICE``
    of the limit), in pieces of ``slice_s`` (at most ``FIRST_SLICE_MAX``) that go on only while
    each rules out at least one top-level root: a search that ruled out none within a piece has
    no pace to finish by ``end`` (segment and occupancy at depth 6, room at depth 5: their first
    roots take minutes; the heuristic phases and the rows' bound prove them sooner), while those
    that do keep the time a shorter slice would cost them (compas depth 5 on two threads at a
    300 s limit: proven in 16.5 s; cut at 6 s, 21.5 s). True when it finished."""
    clock = state.search.deadline
    while True:
        done = state.roots[0] if state.roots is not None else 0
        if state.complete(max(MIN_SLICE, min(slice_s, end - clock.elapsed()))):
            return True
        if clock.expired() or clock.elapsed() >= end - MIN_SLICE:
            return False
        if state.roots is None or state.roots[0] <= done:
            return False


class _Widths:
    """The restricted searches of growing width (``WIDTHS``) across the heuristic rounds: the width
    reached (a search cut by its round resumes there, its memo kept), whether a first tree is in
    hand, whether the widest one has finished (``exhausted``)."""

    def __init__(self) -> None:
        self._wider = iter(WIDTHS)
        self.width = next(self._wider)
        self.first_tree = False
        self.exhausted = False

    def round(self, state: "_State", cap: float, local_cap: float, start: float) -> tuple[bool, bool]:
        """Restricted searches from the width reached on, until ``cap`` seconds after ``start``
        (the state's clock), each improvement followed by local improvement of the new tree (at
        most ``local_cap`` seconds after ``start``; it stops the round when it proved the whole
        tree): (whether the incumbent improved, whether a search was cut before its end)."""
        clock = state.search.deadline
        gained = False
        while not self.exhausted and not clock.expired():
            used = clock.elapsed() - start
            if used >= cap:
                break
            finished, improved = state.restricted(self.width, cap - used)
            if improved:
                gained = True
                state.local(max(MIN_SLICE, local_cap - (clock.elapsed() - start)), depth=min(LOCAL_DEPTH, state.d - 1))
                if state.proven:
                    break
            if not finished:
                return gained, True
            self.first_tree = True
            wider = next(self._wider, None)
            if wider is None:
                self.exhausted = True
                break
            self.width = wider
        return gained, False


class _RowsTurns:
    """Which turns of the complete search go to the rows' bound (:meth:`_State.rows_bound`) while
    it is due (:meth:`_State.rows_due`): every other one while its steps finish within their
    time; after its ``k``-th step cut by its time (the sample has grown past what a turn solves)
    one in ``2 ** k + 1``, so that the complete search keeps most of the time where the sample
    is hard (raisin depth 6: the complete search finds the 4-error tree within the minute, and
    did not when it lost every other turn)."""

    def __init__(self, search: SearchBase, d: int):
        self.search, self.d = search, d
        self.rows: RowsBound | None = None  # drawn at its first turn (most searches never give it one)
        self.wait = 1  # the complete search's turns before the next one of the rows' bound
        self.cuts = 0

    def due(self, state: "_State", floor: float) -> bool:
        """Whether this turn goes to the rows' bound (each call is a turn)."""
        if not state.rows_due(floor):
            return False
        if self.wait > 0:
            self.wait -= 1
            return False
        return True

    def run(self, state: "_State", cap: float) -> bool:
        """The rows' bound's turn of ``cap`` seconds; True when it proved the incumbent optimal."""
        if self.rows is None:
            self.rows = RowsBound(self.search, self.d)
        proven = state.rows_bound(self.rows, cap)
        if self.rows.cap_factor > 1:  # its last step was cut by its time
            self.cuts += 1
        self.wait = 2 ** self.cuts
        return proven


class _LaneClock(Deadline):
    """The heuristic lane's clock: the call's deadline, or earlier once :meth:`stop` is called
    (the complete lane proved the optimum, or the call is over)."""

    def __init__(self, parent: Deadline):
        super().__init__(None)
        self.start, self.time_limit = parent.start, parent.time_limit
        self._stopped = threading.Event()

    def stop(self) -> None:
        self._stopped.set()

    def pause(self, seconds: float) -> None:
        """Sleep ``seconds``, or until :meth:`stop`."""
        self._stopped.wait(max(0.0, seconds))

    def expired(self) -> bool:
        return self._stopped.is_set() or super().expired()

    def remaining(self) -> float | None:
        return 0.0 if self._stopped.is_set() else super().remaining()


def _two_lanes(state: "_State", slice_s: float) -> AnytimeOutcome:
    """The rest of :func:`anytime_search` on a search with two threads or more (depth >
    ``LOCAL_DEPTH``): the complete search in slices on all its threads but one (the *complete
    lane*; with two threads, this thread alone),
    while a second thread runs the heuristic rounds on a twin search of its own (the *heuristic
    lane*: :meth:`CoreSearch.twin`, one thread, its own memo), both sharing the incumbent. A
    slice ends as soon as the heuristic lane finds a better tree, so the next one prunes with it
    (the roots' bounds and the memo are kept between slices). After a round that found nothing
    better the heuristic lane pauses for up to the round's time, the longer the closer the proven
    bound is to the incumbent, and once it has nothing left to try (or the bound is within
    ``NEARLY_DONE_GAP``) it stops: meanwhile the complete search has all the threads.

    Against the schedule sliced in time (one thread), the complete search gets about what its
    slices got there (two thirds to four fifths of the time, on threads whose waves give it
    ~1.5x), the heuristics, while they find better trees, a core of their own."""
    search = state.search
    deadline = search.deadline
    clock = _LaneClock(deadline)
    lane = _State(search.twin(clock), state.d, state.inc, reports=False)
    lane.whole_shifts = False
    failure: list[BaseException] = []

    floor = _floor(search)
    demoted = threading.Event()  # the heuristic lane's thread runs at the lowest priority

    def heuristics() -> None:
        try:
            _heuristic_rounds(lane, slice_s, lambda: 0.0 if state.bound is None or state.cost <= 0
                              else state.bound / state.cost, demoted)
        except BaseException as exc:  # noqa: BLE001 - raised again on the calling thread
            failure.append(exc)

    worker = threading.Thread(target=heuristics, name="satdt-anytime-heuristics", daemon=True)
    search.set_solo(True)
    worker.start()
    def busy() -> bool:  # the heuristic lane takes a core (at work: not done, pausing or demoted)
        return worker.is_alive() and not lane.paused.is_set() and not demoted.is_set()

    since = (deadline.elapsed(), state.roots)  # the complete lane's pace is measured from here
    rows = _RowsTurns(search, state.d)
    try:
        while not deadline.expired() and not lane.proven:
            if worker.is_alive() and state.close():  # within the gap: no heuristic could gain more
                clock.stop()
                worker.join()
            if worker.is_alive() and not demoted.is_set() and state.progress(floor) >= DEMOTE_PROGRESS \
                    and state.proof_in_reach(since):
                _demote(worker, demoted)
            solo = busy()
            search.set_solo(solo)  # the heuristics done or pausing: all the threads to the proof
            if rows.due(state, floor):  # this turn of the complete lane to the rows' bound
                if rows.run(state, max(MIN_SLICE, slice_s)):
                    break
                continue
            started = state.cost

            def stop() -> bool:  # a better tree to prune with, or the other core taken or freed
                return state.cost < started or lane.proven or solo != busy()

            if state.complete(max(MIN_SLICE, slice_s), stop=stop):
                break
    finally:
        clock.stop()
        worker.join()
        search.set_solo(False)
    if failure:
        raise failure[0]
    state.stats["heuristics_demoted"] = int(demoted.is_set())
    state.proven = state.proven or lane.proven
    return state.outcome(lane)


def _floor(search: SearchBase) -> float:
    """A cost no tree can beat: the rows' leaf conflicts and one leaf."""
    return search.q * float(search.wext[:, -1].sum()) + search.lc


def _demote(worker: threading.Thread, demoted: threading.Event) -> None:
    """Run the heuristic lane's thread at the lowest priority (nice 19) from now on, and set
    ``demoted``: the complete lane then runs on all the threads, the heuristics on the time they
    leave idle. Linux only (a thread's own nice value); elsewhere nothing changes."""
    if not sys.platform.startswith("linux") or worker.native_id is None:
        return
    try:
        os.setpriority(os.PRIO_PROCESS, worker.native_id, 19)
    except OSError:  # the thread has ended meanwhile
        return
    demoted.set()


def _heuristic_rounds(lane: "_State", slice_s: float, proven_share: Callable[[], float],
                      demoted: threading.Event) -> None:
    """The heuristic lane of :func:`_two_lanes`: rounds of restricted searches of growing width
    (each improvement followed by local improvement), each followed by the threshold shifts once
    the first restricted tree is in hand, until the lane's clock stops or nothing is left to try.

    After a round that found nothing better (once the first restricted search has finished, and
    unless a threshold shift was cut by the round's end: it resumes next round, its finished
    subtrees in the memo), the lane pauses for the round's time times ``proven_share()`` (the complete lane's bound over the incumbent, in [0,
    1]): its core goes to the complete search in proportion to how close that is to a proof, and
    not at all while the bound is 0 (most continuous sets at depth >= 4, where the complete
    search cannot finish in the time). Once ``demoted`` is set (:func:`_demote`) it no longer
    pauses: it only has the time the complete lane leaves."""
    clock = lane.search.deadline
    widths = _Widths()
    cap = max(MIN_SLICE, slice_s / 2)
    stalled = False  # the last round found nothing better, or its threshold shifts all finished
    while not clock.expired():
        if widths.exhausted and lane.shift_done:
            return
        start = clock.elapsed()
        gained = shift_cut = reroot_cut = False
        # re-rooting first, for half of the round, once a round found nothing better or the
        # shifts all finished without a better tree (the incumbent is a local optimum for them):
        # it needs exact subtrees of depth LOCAL_DEPTH + 1 and more, and on the large sets rarely
        # finishes, so it waits until the cheaper moves are spent; not while the complete lane's
        # bound is within REROOT_MAX_SHARE of the incumbent (its exact searches would take the
        # core the pauses give the proof: compas d5 proved in 32 s against 21 s, one pair)
        rerooting = stalled and not lane.inc.reroot_done and proven_share() < REROOT_MAX_SHARE \
            and lane.d <= REROOT_MAX_DEPTH
        if rerooting:
            before = lane.cost
            reroot_cut = not lane.reroot(max(MIN_SLICE, cap / 2))
            gained = lane.cost < before
        found, cut = widths.round(lane, cap, cap, start)
        gained = gained or found
        # the shifts in every round once the restricted search's first tree is in hand (here they
        # take no time from the complete search: raisin depth 4's optimum is one shift away)
        shifts_spent = False  # the shifts finished on the incumbent without a better tree
        if (widths.first_tree or widths.exhausted) and not lane.shift_done and not clock.expired():
            before = lane.cost
            shift_cut = not lane.shift(max(MIN_SLICE, cap))
            gained = gained or lane.cost < before
            shifts_spent = not shift_cut and not lane.cost < before
        stalled = shifts_spent or (widths.first_tree or widths.exhausted) and not gained
        if gained or cut or shift_cut or reroot_cut:  # a cut search resumes next round, with twice the time
            cap *= 2
        if widths.first_tree and not gained and not shift_cut and not reroot_cut and not clock.expired() \
                and not demoted.is_set():  # (demoted: it only has the time the complete lane leaves)
            # a round that found nothing better (its restricted search finished or cut: a stall,
            # as in the schedule sliced in time; not while a threshold shift is under way): the
            # lane pauses for up to as long as the round took, its core to the complete search
            pause = (clock.elapsed() - start) * min(1.0, max(0.0, proven_share()))
            if pause > 0.01:
                lane.paused.set()
                clock.pause(pause)
                lane.paused.clear()


class _Incumbent:
    """The best tree so far, shared by the lanes of :func:`anytime_search` (a lock around every
    change), with the threshold shifts' progress on it (a new incumbent starts them again)."""

    def __init__(self, node: Node, cost: float, source: str, reporter: ProgressReporter | None,
                 to_objective: Callable[[float], float]):
        self.node, self.cost, self.source = node, float(cost), source
        self.reporter, self.to_objective = reporter, to_objective
        self.shift_window = SHIFT_WINDOW  # of the threshold shifts; doubled when all were tried
        self.shift_done = False  # every test of every chain tried at every shift node of the incumbent
        self.reroot_done = False  # every re-rooting candidate of the incumbent solved (see reroot)
        self.reroot_next = 0  # the re-rooting candidates of the incumbent solved so far
        self.lock = threading.Lock()

    def offer(self, node: Node, cost: float, source: str) -> bool:
        """Take the tree if it costs less than the incumbent; True when it did."""
        with self.lock:
            if not cost < self.cost:
                return False
            self.node, self.cost, self.source = node, float(cost), source
            self.shift_window, self.shift_done = SHIFT_WINDOW, False
            self.reroot_done, self.reroot_next = False, 0
            if self.reporter is not None:
                self.reporter.emit("incumbent", incumbent=self.to_objective(self.cost), message=source)
            return True


class _State:
    """One lane of :func:`anytime_search`: a search and its phases, the shared incumbent, the
    bound its complete search proved."""

    def __init__(self, search: SearchBase, d: int, incumbent: _Incumbent, reports: bool = True):
        self.search, self.d, self.inc = search, d, incumbent
        self.reports = reports  # the search's own progress events (the complete lane's only)
        self.paused = threading.Event()  # the heuristic lane pauses (its core to the complete lane)
        self.whole_shifts = True  # the last threshold shifts try every test (see shift)
        self.bound: float | None = None  # the best proven lower bound (of any phase)
        self.searched_bound: float | None = None  # the complete search's own
        self.proven = False
        self.roots: tuple[int, int] | None = None  # the complete search's (done, live) top-level roots
        self.stats = {"complete_slices": 0, "restricted_runs": 0, "restricted_width": 0,
                      "local_solves": 0, "local_improvements": 0, "shift_solves": 0,
                      "shift_improvements": 0, "reroot_solves": 0, "reroot_improvements": 0,
                      "heuristics_demoted": 0, "rows_steps": 0, "rows_sample": 0}

    @property
    def node(self) -> Node:
        return self.inc.node

    @property
    def cost(self) -> float:
        return self.inc.cost

    @property
    def shift_done(self) -> bool:
        return self.inc.shift_done

    def outcome(self, *others: "_State") -> AnytimeOutcome:
        """The answer, with the counters of this lane and of the ``others``."""
        stats = dict(self.stats)
        for other in others:
            for key, value in other.stats.items():
                stats[key] = max(stats[key], value) if key == "restricted_width" else stats[key] + value
        bound = self.cost if self.proven else self.bound
        return AnytimeOutcome(self.node, self.cost, self.proven, bound, self.inc.source, stats)

    def _run(self, d: int, ub: float, **kw) -> SearchOutcome:
        search, inc = self.search, self.inc
        if not self.reports:
            return search.run(d, ub, **kw)
        search.reporter, search.to_objective = inc.reporter, inc.to_objective
        try:
            return search.run(d, ub, **kw)
        finally:
            search.reporter, search.to_objective = None, float

    def _adopt(self, node: Node, cost: float, source: str) -> None:
        self.inc.offer(node, cost, source)

    def complete(self, cap: float | None, stop: Callable[[], bool] | None = None) -> bool:
        """One slice of the complete search (``cap`` seconds, None: to the end; ``stop``: ends it
        early once True); True when it finished (the incumbent is then proven optimal)."""
        self.stats["complete_slices"] += 1
        kw = {} if cap is None else {"time_cap": cap}
        if stop is not None:
            kw["stop"] = stop
        out = self._run(self.d, self.cost, **kw)
        if out.node is not None and out.cost is not None:
            self._adopt(out.node, out.cost, "dp")
        if out.finished:
            self.proven = True
            return True
        self.roots = out.roots
        if out.bound is not None:
            self.searched_bound = out.bound if self.searched_bound is None else max(self.searched_bound, out.bound)
            self.raise_bound(out.bound)
        return False

    def rows_due(self, floor: float) -> bool:
        """Whether the rows' bound should share the complete lane's time: that lane's own bound
        is still at ``floor`` (it proves nothing yet) and the incumbent is within ``ROWS_MAX_GAP``
        errors of the floor (a sample of a few hundred rows can need that many)."""
        at_floor = self.searched_bound is None or self.searched_bound <= floor
        return at_floor and floor < self.cost <= floor + ROWS_MAX_GAP * self.search.q

    def raise_bound(self, bound: float) -> bool:
        """Take a proven lower bound (the complete search's, the rows' bound's) if it is higher;
        True when it was."""
        with self.inc.lock:
            low = min(float(bound), self.inc.cost)
            if self.bound is not None and low <= self.bound:
                return False
            self.bound = low
            return True

    def rows_bound(self, rows: RowsBound, cap: float) -> bool:
        """Steps of the rows' bound (:mod:`satdt.solvers.dp.rows_bound`) on this lane's search for
        ``cap`` seconds in all: each step's bound raises the proven bound, a tree it proves optimal
        becomes the incumbent; True when they proved the incumbent optimal (``proven`` set).

        A step after the turn's first starts only with ``ROWS_STEP_ROOM`` times the last step's time
        left (the sample grows: a step takes about as long as the last, or longer), and a step cut
        with less than half the turn is not *cut by its time* (``cap_factor`` back to 1): the turn
        ended, the sample did not outgrow it (occupancy depth 6: such cuts at the turns' ends made
        the turns come 2x then 4x more rarely, and the proof at 2.3 s of the rows' own time came at
        8-10 s or after the 10 s limit)."""
        clock = self.search.deadline
        stop = clock.elapsed() + cap
        last = None  # the time of this turn's last step
        while not self.proven and not clock.expired() and clock.elapsed() < stop - MIN_ROWS_STEP:
            left = stop - clock.elapsed()
            if last is not None and left < ROWS_STEP_ROOM * last:
                break  # the next turn
            begin = clock.elapsed()
            step = rows.step(self.cost, left)
            last = clock.elapsed() - begin
            if rows.cap_factor > 1 and left < cap / 2:
                rows.cap_factor = 1.0  # cut by the turn's end
            self.stats["rows_steps"] += 1
            self.stats["rows_sample"] = int(rows.rows.size)
            if step.optimal:
                self._adopt(step.node, self.search.tree_cost(step.node), "rows")
            reporter = self.inc.reporter
            if step.bound is not None and self.raise_bound(step.bound) and self.reports and reporter is not None:
                reporter.emit("bound", bound=self.inc.to_objective(self.bound), message="rows")
            self.proven = step.optimal or step.beyond
            if rows.cap_factor > 1:  # cut by its time: it resumes in the next turn, with twice the time
                break
        return self.proven

    def progress(self, floor: float) -> float:
        """The share of the way from ``floor`` (a cost no tree can beat) up to the incumbent that
        the proven bound has covered, in [0, 1] (0 without a bound)."""
        if self.bound is None or self.cost <= floor:
            return 0.0
        return min(1.0, max(0.0, (self.bound - floor) / (self.cost - floor)))

    def proof_in_reach(self, since: tuple[float, tuple[int, int] | None]) -> bool:
        """Whether the complete search, at the pace it has ruled out top-level roots since
        ``since`` (the clock and its (done, live) roots then), would rule out the live ones left
        within the time left (an estimate: the pace of one thread, usually rising as the bounds
        tighten)."""
        start, roots = since
        if roots is None or self.roots is None:
            return False
        elapsed = self.search.deadline.elapsed() - start
        ruled_out = roots[1] - self.roots[1]
        left = self.search.deadline.remaining()
        if elapsed <= 0 or ruled_out <= 0 or left is None:
            return False
        return self.roots[1] * elapsed / ruled_out <= left

    def close(self) -> bool:
        """Whether the proven bound is within ``NEARLY_DONE_GAP`` of the incumbent: the heuristic
        phases could gain at most that much, and the complete search takes the rest of the time."""
        return self.bound is not None and self.cost - self.bound <= NEARLY_DONE_GAP * self.cost

    def nearly_done(self) -> bool:
        """Whether the complete search's last slice left fewer top-level roots that could beat the
        incumbent than it has evaluated, or a proven bound within ``NEARLY_DONE_GAP`` of the
        incumbent (a heuristic round could gain at most that gap: htru depth 3 at a 600 s limit
        ends its first slice with 275 against a bound of 274, and twelve restricted searches then
        cost 21 s of a 95 s proof that takes 73 s alone)."""
        if self.close():
            return True
        return self.roots is not None and 0 < self.roots[0] and self.roots[1] <= self.roots[0]

    def restricted(self, width: int, cap: float) -> tuple[bool, bool]:
        """The restricted search of that width (see the module docstring), for at most ``cap`` s:
        (whether it finished, whether it improved the incumbent)."""
        self.stats["restricted_runs"] += 1
        self.stats["restricted_width"] = max(self.stats["restricted_width"], width)
        before = self.cost
        out = self._run(self.d, self.cost, width=width, time_cap=cap)
        if out.node is not None and out.cost is not None:
            self._adopt(out.node, out.cost, f"restricted-{width}")
        return out.finished, self.cost < before

    def _subtrees(self, depth: int, tree: Node) -> list[tuple[tuple, np.ndarray, int]]:
        """The subtrees of depth budget <= ``depth`` of ``tree`` (the incumbent) that no larger
        such subtree contains, left to right, as (path from the root, the distinct rows reaching
        it, its depth budget); a leaf above that budget stands for any subtree of depth <=
        ``depth`` there."""
        search = self.search
        out = []

        def collect(node: Node, rows: np.ndarray, level: int, path: tuple) -> None:
            budget = self.d - level
            if len(rows) == 0 or budget <= 0:
                return
            if budget <= depth or node.is_leaf:
                out.append((path, rows, min(budget, depth)))
                return
            right = search.goes_right_binary(rows, node.feature)
            collect(node.left, rows[~right], level + 1, path + (0,))
            collect(node.right, rows[right], level + 1, path + (1,))

        collect(tree, np.arange(search.counts.shape[0], dtype=np.int64), 0, ())
        return out

    def _resolve(self, root: Node, path: tuple, reach: np.ndarray, move: str, depth: int,
                 **run) -> tuple[Node, SearchOutcome, bool]:
        """Re-solve the subtree of ``root`` at ``path`` (the distinct rows ``reach`` reaching it) at
        ``depth`` with its own cost as upper bound (``run``: the search's other arguments), and
        put the answer in its place when it costs less: (the tree, the search's outcome, whether
        it improved). Counts ``<move>_solves`` and ``<move>_improvements``."""
        search = self.search
        sub_cost = search.subtree_cost(_at(root, path), reach)
        self.stats[f"{move}_solves"] += 1
        out = search.run(depth, sub_cost, **run)
        better = out.node is not None and out.cost is not None and out.cost < sub_cost
        if better:
            root = _replace(root, path, out.node)
            self.stats[f"{move}_improvements"] += 1
        return root, out, better

    def local(self, cap: float, depth: int = LOCAL_DEPTH) -> None:
        """Re-solve every subtree of depth <= ``depth`` of the incumbent exactly on its rows,
        left to right, for at most ``cap`` seconds in all."""
        search = self.search
        stop = search.deadline.elapsed() + cap
        start = self.node
        todo = self._subtrees(depth, start)
        changed = False
        root = copy.deepcopy(start)
        for path, rows, budget in todo:
            left = stop - search.deadline.elapsed()
            if left <= 0 or search.deadline.expired():
                break
            root, out, better = self._resolve(root, path, rows, "local", budget, rows=rows, time_cap=left)
            changed = changed or better
            if out.finished and not path and budget == self.d:  # the whole tree (depth <= `depth`):
                self.proven = True  # this was the complete search, with the incumbent's cost as bound
        if changed:
            self._adopt(root, search.tree_cost(root), "local")

    def shift(self, cap: float, window: int | None = None) -> bool:
        """Move the tests of the incumbent's nodes of depth budget ``LOCAL_DEPTH + 1`` along their
        threshold chain: at each such node (left to right), the tests of the same chain within
        ``window`` thresholds of its own are tried as its test with *exact* subtrees below (the
        complete search with ``roots``), on the rows that reach it, for at most ``cap`` seconds in
        all. Local improvement re-solves whole subtrees of depth <= ``LOCAL_DEPTH`` but keeps the
        tests above them; a nearby threshold with exact children is where a better tree most often
        is (raisin depth 4: the optimum, 59, splits the root 26 thresholds from the incumbent's,
        60, on the same feature, while the complete search meets that root last, its lower bound
        being close to the optimum). True when every node's shifts were solved to the end.

        ``window`` (default ``shift_window``): when the shifts of that window were all solved and
        none was better, the next call doubles it; once it spans every chain, the next call tries
        every test (the node's subtree re-solved exactly) and then ``shift_done`` is set; without
        ``whole_shifts`` (the heuristic lane, beside a complete search that does that exact work)
        it is set once the window spans every chain. A new incumbent starts again from
        ``SHIFT_WINDOW``."""
        search, ch = self.search, self.search.ch
        default = window is None
        window = self.inc.shift_window if default else window
        whole = window >= len(ch.chain)  # every test of the node: its subtree solved exactly
        stop = search.deadline.elapsed() + cap
        start = self.node
        todo = []  # (path, rows, window columns) of each split node of depth budget LOCAL_DEPTH + 1
        for path, rows, budget in self._subtrees(LOCAL_DEPTH + 1, start):
            node = _at(start, path)
            if budget <= LOCAL_DEPTH or node.is_leaf:
                continue
            g = ch.column_of[int(node.feature)]
            lo, hi = max(0, g - window), min(len(ch.chain), g + window + 1)
            cols = np.arange(lo, hi, dtype=np.int64)
            if not whole:
                cols = cols[ch.chain[lo:hi] == ch.chain[g]]
            if len(cols) > 1:
                todo.append((path, rows, cols))

        root = copy.deepcopy(start)
        changed, complete = False, True
        for path, rows, cols in todo:
            left = stop - search.deadline.elapsed()
            if left <= 0 or search.deadline.expired():
                complete = False
                break
            root, out, better = self._resolve(root, path, rows, "shift", LOCAL_DEPTH + 1,
                                              rows=None if not path else rows, roots=cols, time_cap=left)
            complete = complete and out.finished
            changed = changed or better
        if changed:
            self._adopt(root, search.tree_cost(root), "shift")
        elif complete and default:
            with self.inc.lock:
                if self.inc.node is not start:  # a new incumbent meanwhile (the other lane)
                    return complete
                longest = int(np.bincount(ch.chain).max()) if len(ch.chain) else 0
                if whole or (not self.whole_shifts and window >= longest):
                    self.inc.shift_done = True
                elif 2 * window >= longest:  # past the longest chain: every test (or the chains whole)
                    self.inc.shift_window = len(ch.chain) if self.whole_shifts else longest
                else:  # the next window
                    self.inc.shift_window = 2 * window
        return complete


    def reroot(self, cap: float) -> bool:
        """Re-rooting: at each node of the incumbent of depth budget ``LOCAL_DEPTH + 1`` or
        ``LOCAL_DEPTH + 2`` (the top of the tree at depths 4-6), each test of the
        ``REROOT_LEVELS`` levels below it in the incumbent, on any chain, is tried as its test
        with *exact* subtrees below (the complete search restricted to that root, on the node's
        rows, with the subtree's cost as upper bound), for at most ``cap`` seconds in all. The
        threshold shifts move a test along its own chain; this brings a test of another feature
        up from below, the move a heuristic's choice of root most often misses (occupancy depth
        5: CART's root with exact subtrees costs 10, its left child's test 9, the best tree
        known). The candidates go one at a time, nearest level first (a child's test before a
        grandchild's), each its own run: a cut one is solved again in the next call, its
        finished subproblems in the memo. True when every candidate was solved to the end (then
        ``reroot_done`` until a new incumbent)."""
        search, ch = self.search, self.search.ch
        stop = search.deadline.elapsed() + cap
        start = self.node
        todo = []  # (path, rows, depth budget, candidate column in chain order)
        for path, rows, budget in self._subtrees(LOCAL_DEPTH + 2, start):
            node = _at(start, path)
            if budget <= LOCAL_DEPTH or node.is_leaf:
                continue
            seen = {int(node.feature)}
            for f in _tests_by_level(node, REROOT_LEVELS)[1:]:
                if f not in seen:
                    seen.add(f)
                    todo.append((path, rows, budget, int(ch.column_of[f])))
        with self.inc.lock:
            if self.inc.node is not start:
                return False
            done = self.inc.reroot_next
        root = copy.deepcopy(start)
        changed = False
        for k in range(done, len(todo)):
            path, rows, budget, col = todo[k]
            left = stop - search.deadline.elapsed()
            if left <= 0 or search.deadline.expired():
                break
            root, out, better = self._resolve(root, path, rows, "reroot", budget, rows=None if not path else rows,
                                              roots=np.array([col], dtype=np.int64), time_cap=left)
            changed = changed or better
            if not out.finished:
                break
            done = k + 1
        if changed:
            self._adopt(root, search.tree_cost(root), "reroot")
            return done == len(todo)
        with self.inc.lock:
            if self.inc.node is start:
                self.inc.reroot_next = done
                self.inc.reroot_done = done == len(todo)
        return done == len(todo)


def _tests_by_level(node: Node, levels: int) -> list[int]:
    """The tests (columns) of the split nodes of the ``levels`` top levels of ``node``'s subtree,
    level by level (the node's own first), left to right within a level."""
    out, level = [], [node]
    for _ in range(levels):
        level = [n for n in level if not n.is_leaf]
        out += [int(n.feature) for n in level]
        level = [c for n in level for c in (n.left, n.right)]
    return out


def _at(node: Node, path: tuple) -> Node:
    for side in path:
        node = node.right if side else node.left
    return node


def _replace(root: Node, path: tuple, new: Node) -> Node:
    if not path:
        return new
    parent = _at(root, path[:-1])
    if path[-1]:
        parent.right = new
    else:
        parent.left = new
    return root
