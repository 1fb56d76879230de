import type * as JsDiff from "diff";
import type { DiffLines } from "./line-diff.js";

declare global {
  // set by jsdiff's own browser build, which index.html loads before this module (the gateway serves it)
  var Diff: typeof JsDiff;
}

/** The page's line diff: jsdiff's `diffLines`. */
export const pageDiffLines: DiffLines = (oldText, newText) => globalThis.Diff.diffLines(oldText, newText);
