/** One side of a comparison: runs once and returns the figure it measured, in milliseconds. */
export type Contender = () => Promise<number>;

export interface InterleaveOptions {
  /** rounds run first and thrown away: JIT, connection pools, caches and the file cache warm up */
  warmup: number;
  /** rounds kept; each round gives every contender one sample */
  samples: number;
  /** awaited between rounds, e.g. to clear the scripted model's request log or let a turn's tail finish */
  betweenRounds?: (round: number) => void | Promise<void>;
}

/**
 * Runs contenders in alternation, A B A B …, so that drift on a shared machine (another process waking up,
 * the CPU clocking down) lands on every contender alike and ratios stay comparable. Contenders run one at a
 * time, never concurrently.
 */
export async function interleave<K extends string>(contenders: Record<K, Contender>, options: InterleaveOptions): Promise<Record<K, number[]>> {
  const names = Object.keys(contenders) as K[];
  const results = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let round = 0; round < options.warmup + options.samples; round++) {
    for (const name of names) {
      const value = await contenders[name]();
      if (round >= options.warmup) results[name].push(value);
    }
    await options.betweenRounds?.(round);
  }
  return results;
}

/** Times one call of `work` in milliseconds. */
export async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return performance.now() - started;
}
