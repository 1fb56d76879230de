/** Summary statistics of timing samples, in the unit the samples were taken in (milliseconds here). */
export interface Summary {
  count: number;
  p50: number;
  p99: number;
  mean: number;
  min: number;
  max: number;
}

/**
 * Nearest-rank percentiles: the value at rank ceil(q·n), with no interpolation, so every reported figure
 * is a sample that was really measured. With n ≥ 1,000 the p99 is backed by at least 10 samples above it.
 */
export function summarize(samples: readonly number[]): Summary {
  if (samples.length === 0) return { count: 0, p50: Number.NaN, p99: Number.NaN, mean: Number.NaN, min: Number.NaN, max: Number.NaN };
  const sorted = [...samples].sort((left, right) => left - right);
  const rank = (quantile: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))] as number;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return { count: sorted.length, p50: rank(0.5), p99: rank(0.99), mean: total / sorted.length, min: sorted[0] as number, max: sorted[sorted.length - 1] as number };
}

/** Milliseconds since `started` (a `performance.now()` reading). */
export const elapsedMs = (started: number): number => performance.now() - started;
