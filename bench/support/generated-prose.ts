/**
 * Deterministic text for measure 13's documents and trees: the same seed always gives the same words, so
 * every run writes the same bytes, and different seeds give different files (different sha256s, so the file
 * store keeps each content once per file, as a real project's distinct files are kept).
 */
const vocabulary = (
  "the user team story epic acceptance criteria system service api data model event queue store cache latency budget " +
  "release sprint backlog owner review test deploy monitor metric error retry session project workflow agent document " +
  "section requirement constraint risk decision interface schema customer checkout payment invoice account profile " +
  "search report export import dashboard notification permission role audit log migration index query response request"
).split(" ");

/** A source of words and sentences drawn from `seed`. */
export interface Prose {
  word(): string;
  /** `length` words, capitalised, ending with a full stop */
  sentence(length: number): string;
  /** a whole number in [0, bound) */
  below(bound: number): number;
}

export function prose(seed: number): Prose {
  // a linear congruential generator: cheap, and enough to vary words
  let state = (seed * 2_654_435_761) % 2_147_483_648;
  const below = (bound: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return Math.floor((state / 2_147_483_648) * bound);
  };
  const word = () => vocabulary[below(vocabulary.length)] as string;
  return {
    word,
    below,
    sentence(length) {
      const text = Array.from({ length }, word).join(" ");
      return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
    },
  };
}
