/** Display formats for sizes, durations, amounts and times, short enough for a narrow screen. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

export function formatDuration(milliseconds: number): string {
  if (milliseconds < 1000) return `${Math.round(milliseconds)} ms`;
  return `${(milliseconds / 1000).toFixed(milliseconds < 10_000 ? 1 : 0)} s`;
}

/** An amount in the prices' currency (which the page does not know): two decimals, or three significant digits below 1. */
export function formatCost(amount: number): string {
  if (amount >= 1) return amount.toFixed(2);
  return String(Number(amount.toPrecision(3)));
}

/**
 * "You today: 0.0036 of 0.05 · this month: 0.0108": the caller's own spending and daily budget (docs/models.md
 * "Cost totals"); undefined when nothing is priced and no budget is set, so the page shows nothing.
 */
export function formatOwnSpending(usage: { today: { cost: number }; this_month: { cost: number }; daily_budget: { limit: number | null } }): string | undefined {
  const limit = usage.daily_budget.limit;
  if (usage.this_month.cost === 0 && limit === null) return undefined;
  return `You today: ${formatCost(usage.today.cost)}${limit === null ? "" : ` of ${formatCost(limit)}`} · this month: ${formatCost(usage.this_month.cost)}`;
}

const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ["year", 365 * 24 * 3600],
  ["month", 30 * 24 * 3600],
  ["week", 7 * 24 * 3600],
  ["day", 24 * 3600],
  ["hour", 3600],
  ["minute", 60],
];

/** "5 minutes ago", "yesterday"; under a minute is "just now". An unreadable time is shown as given. */
export function formatRelativeTime(iso: string, now: number = Date.now()): string {
  const time = Date.parse(iso);
  if (Number.isNaN(time)) return iso;
  const seconds = (time - now) / 1000;
  const format = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return format.format(Math.round(seconds / size), unit);
  return "just now";
}
