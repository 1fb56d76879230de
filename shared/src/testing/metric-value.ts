import type { Registry } from "prom-client";

/** A counter's value, or how many observations a histogram has, for one set of labels (undefined: none yet). */
export async function metricValue(registry: Registry, name: string, labels: Record<string, string> = {}): Promise<number | undefined> {
  const metric = await registry.getSingleMetric(name)?.get();
  // a histogram's values are its buckets, sum and count, each named
  const series = String(metric?.type) === "histogram" ? `${name}_count` : undefined;
  return metric?.values.find(
    (value) => (series === undefined || (value as { metricName?: string }).metricName === series) && Object.entries(labels).every(([key, label]) => value.labels[key] === label),
  )?.value;
}
