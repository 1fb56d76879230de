/**
 * The nearest-rank percentile of `samples` (as stats.ts takes p50 and p99): the value at rank ceil(q·n),
 * so the figure is a sample that was really measured.
 */
export function percentile(samples: readonly number[], quantile: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((left, right) => left - right);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(quantile * sorted.length) - 1))] as number;
}
