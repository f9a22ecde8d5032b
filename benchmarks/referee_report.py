"""The report of ``referee_bench.py`` (its table, targets, ratios, stages, attribution and
profiles) printed from the result it builds; imported by `referee_bench`, and importing nothing
of it at run time."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from referee_ratios import verdict

if TYPE_CHECKING:
    from referee_bench import Row

TARGET_US = 40.0
TARGET_LINE = f"target: referee CPU per move <= {TARGET_US:.0f} µs with the C bots"


def fmt(value: float | None, spec: str) -> str:
    return "-" if value is None else format(value, spec)


def print_table(rows: list[Row]) -> None:
    header = (
        f"{'row':<46} {'matches':>7} {'hands':>5} {'moves':>6} {'wall s':>6} {'moves/s':>7} "
        f"{'ref CPU µs/move':>15} {'(sys)':>5} {'(gc)':>5} {'marginal':>8} "
        f"{'fixed ms':>8} {'(wall)':>6} {'bots µs/move':>12}"
    )
    print(header)
    print("-" * len(header))
    for r in rows:
        print(
            f"{r.name:<46} {r.matches:>7} {r.hands:>5} {r.moves:>6} {r.wall_s:>6.2f} "
            f"{r.moves_per_s:>7.0f} {r.ref_cpu_us_per_move:>15.1f} "
            f"{fmt(r.ref_sys_us_per_move, '.1f'):>5} {fmt(r.ref_gc_us_per_move, '.1f'):>5} "
            f"{fmt(r.marginal_us_per_move, '.1f'):>8} {fmt(r.fixed_ms_per_match, '.1f'):>8} "
            f"{fmt(r.fixed_wall_ms_per_match, '.0f'):>6} "
            f"{fmt(r.bots_cpu_us_per_move, '.1f'):>12}"
        )


def print_report(result: dict[str, Any], rows: list[Row], args: argparse.Namespace) -> None:
    info = result["machine"]
    print(
        f"referee_bench: {result['players']} players, {args.matches} matches x {args.hands} "
        "hands per row, "
        f"best of {args.repeat}, Python {info['python']}, trio {info['trio']}, msgspec "
        f"{info['msgspec']}, {info['cpus']} CPUs ({info.get('cpu', '?')}), affinity "
        f"{info['affinity']}, load {info['loadavg_1min_at_start']}"
    )
    print_table(rows)
    for note in result["notes"]:
        print(f"note: {note}")
    print(
        "columns: ref CPU = getrusage(SELF) user+sys / moves, (sys) its system part, (gc) CPU in "
        "gc collections; marginal µs/move and fixed ms/match: the CPU split with a second run of "
        "1-hand matches; (wall) = fixed wall ms per match; bots = RUSAGE_CHILDREN / moves"
    )
    print(TARGET_LINE)
    for row in result["c_rows"]:
        verdict = "met" if row["ref_cpu_us_per_move"] <= TARGET_US else "NOT met"
        print(
            f"measured: {row['ref_cpu_us_per_move']:.1f} µs/move (marginal "
            f"{fmt(row['marginal_us_per_move'], '.1f')} µs), {row['name']}: target {verdict}"
        )
    print_ratios(result)
    stages = result.get("engine_stages_us_per_move")
    if stages is not None:
        print(
            "\nengine + codec stages, referee CPU µs per move (each stage timed in bulk over "
            "the C row's requests, best of runs):"
        )
        for name, us in stages.items():
            print(f"  {name:<60} {us:6.2f}")
        # entries starting with a blank are parts of the one above, not summed
        total = sum(us for name, us in stages.items() if not name.startswith(" "))
        print(f"  {'sum of the stages':<60} {total:6.2f}")
        print(f"  {'engine row, the same work in one loop':<60} {result['engine_us']:6.2f}")
    floor = result.get("floor")
    if floor is not None:
        print(
            "\nratio 1 if calls cost nothing: the engine row with them left out (least µs/move), "
            "and the median of its runs' ratios to the playouts timed right after each:"
        )
        for name, row in floor["rows"].items():
            pairs = ", ".join(f"{p:.2f}" for p in row["pairs"])
            print(f"  {name:<44} {row['us_per_move']:6.2f} µs/move {row['ratio']:5.2f}x ({pairs})")
    parts = result.get("attribution_us_per_move")
    if parts is not None:
        print(
            "\nattribution of the C rows' marginal µs/move (in-memory rows less their bots' "
            f"parsing, {result['bot_parse_us_per_move']:.1f} µs):"
        )
        for name, us in parts.items():
            print(f"  {us:6.1f}  {name}")
    prof = result.get("cprofile")
    if prof is not None:
        print(
            f"\ncProfile (thread CPU timer) of one C-bot match ({prof['moves']} moves; its "
            f"overhead inflates every call, total {prof['total_us_per_move']:.1f} µs/move: "
            f"for call counts and ranking only; a coroutine counts a call per resumption):"
        )
        print(f"  {'own µs/move':>11} {'cum µs/move':>11} {'calls/move':>10}  function")
        for r in prof["by_own"]:
            print(
                f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                f"{r['calls_per_move']:>10.2f}  {r['function']}"
            )
        print("\n  selected functions by cumulative time:")
        for r in prof["by_cum"]:
            print(
                f"  {r['own_us_per_move']:>11.2f} {r['cum_us_per_move']:>11.2f} "
                f"{r['calls_per_move']:>10.2f}  {r['function']}"
            )
    if "pyspy" in result:
        spy = result["pyspy"]
        if spy is None:
            print("\npy-spy not installed (pip install py-spy): no sampling profile")
        elif "error" in spy:
            print(f"\n{spy['error']}")
        else:
            print(
                f"\npy-spy sampling profile of play_match with in-memory instant bots, "
                f"{spy['moves']} moves ({spy['samples']} samples at {spy['rate_hz']} Hz; that "
                f"run's CPU {spy['cpu_us_per_move']:.1f} µs/move, split by share of samples; "
                f"pipes excluded, see the attribution):"
            )
            print(f"  {'µs/move':>7} {'share':>6}  category")
            for name, cat in spy["categories"].items():
                print(f"  {cat['us_per_move']:>7.1f} {cat['share']:>6.1%}  {name}")


def print_ratios(result: dict[str, Any]) -> None:
    """The two ratios of issue 15, each from this run."""
    e = result["ratio_engine_row_to_playouts"]
    pairs = ", ".join(f"{p:.2f}" for p in e["pair_ratios"])
    print(
        f"ratio 1: engine + codec row {e['engine_row_us_per_move']:.2f} µs/move / engine random "
        f"playouts {e['playout_us_per_move']:.2f} µs/move = {e['ratio']:.2f}x (pairs {pairs}); "
        f"target <= {e['target']:.0f}x: {verdict(e['met'])}"
    )
    r = result["ratio_play_match_to_minimal"]
    pairs = ", ".join(f"{p:.2f}" for p in r["pair_ratios"])
    print(
        f"ratio 2: play_match C instant x2 {r['play_match_moves_per_s']:.0f} moves/s / minimal "
        f"trio referee {r['minimal_moves_per_s']:.0f} moves/s = {r['ratio']:.2f} (pairs "
        f"{pairs}); target >= {r['target']:.2f}: {verdict(r['met'])}"
    )
