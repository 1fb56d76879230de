/**
 * Run-wide settings. `BENCH_QUICK=1` shrinks every sample count and duration so a developer can iterate
 * in about a minute; figures from a quick run are indicative only and are marked as such in the output.
 */
export const quick = process.env["BENCH_QUICK"] === "1";

/** Picks the full-run or the quick-run value. */
export const pick = <T>(full: T, quickValue: T): T => (quick ? quickValue : full);

/** Samples per latency measure: ≥ 1,000 in a full run, as the issue asks, so p99 rests on ≥ 10 samples. */
export const latencySamples = pick(1_000, 150);

/** Warm-up rounds before any latency measure. */
export const warmupRounds = pick(100, 20);

/**
 * Pause between sequential turns (see BenchContext.settle): longer than a turn's tail after its answer (the
 * session record's outcome write and the work-queue acknowledgement, 5–15 ms here), so it is not charged to
 * the next sample nor mixed into its trace.
 */
export const settleMs = 30;
