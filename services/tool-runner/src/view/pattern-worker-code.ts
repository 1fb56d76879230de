/**
 * The code a pattern worker thread runs (pattern-worker.ts), as plain JavaScript evaluated by `new Worker(code,
 * { eval: true })`: a string, so it loads the same from the TypeScript sources (vitest, tsx, whose transforms
 * would add helpers to a function's `toString()`) and from the compiled `dist/`. It answers two tasks:
 *
 * - `paths`: the indices of the `paths` the first of `patterns` that matches any of them matches, and which
 *   pattern that was (find_files' glob, then its case-blind retry; search_files' glob filter);
 * - `scan`: for each file of a batch, the lines where the pattern matches, one hit per line (the line a match
 *   starts on), 1-based line numbers, at most `maxHits` (then `more`), each line cut to about `maxChars`
 *   characters around the match. A file comes as text, or as bytes in `buffer` (shared memory the main thread
 *   reuses, or a buffer handed over) that are checked as text-content.ts checks them (a NUL or invalid UTF-8
 *   is binary). A case-sensitive literal is searched in the bytes themselves (UTF-8 matches only at character
 *   boundaries, so this finds what a text search finds, several times faster); anything else is one `gm`
 *   regular expression over the whole text, lines counted as matches move on, never a call per line. After a
 *   hit the search jumps to the next line, so a zero-length match cannot loop.
 *
 * Before each file (and each `paths` task) it writes that unit's id and start time to the shared `state`, so
 * the main thread's watchdog sees a unit that runs too long even while its own event loop is late.
 */
export const patternWorkerCode = String.raw`
"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const { isUtf8 } = require("node:buffer");
const state = new BigInt64Array(workerData.state);
let compiled = { key: "", regex: undefined };

function regexOf(source, flags) {
  const key = flags + "/" + source;
  if (compiled.key !== key) compiled = { key, regex: new RegExp(source, flags) };
  return compiled.regex;
}

function started(unit) {
  Atomics.store(state, 1, BigInt(Date.now()));
  Atomics.store(state, 0, BigInt(unit));
}

function matchPaths(task) {
  started(task.id);
  for (let which = 0; which < task.patterns.length; which++) {
    const regex = new RegExp(task.patterns[which].source, task.patterns[which].flags);
    const matched = [];
    for (let index = 0; index < task.paths.length; index++) if (regex.test(task.paths[index])) matched.push(index);
    if (matched.length > 0) return { id: task.id, matched, which };
  }
  return { id: task.id, matched: [], which: -1 };
}

function isText(bytes) {
  return bytes.indexOf(0) === -1 && isUtf8(bytes);
}

function withoutBom(text) {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function isLowSurrogate(code) {
  return code >= 0xdc00 && code <= 0xdfff;
}

// the line from lineStart to lineEnd (its line break excluded), cut to about maxChars around start
function excerpt(text, lineStart, lineEnd, start, maxChars) {
  let end = lineEnd;
  if (end > lineStart && text.charCodeAt(end - 1) === 13) end--;
  if (end - lineStart <= maxChars) return text.slice(lineStart, end);
  let from = Math.max(lineStart, Math.min(start - Math.floor(maxChars / 4), end - maxChars));
  let to = Math.min(end, from + maxChars);
  if (from > lineStart && isLowSurrogate(text.charCodeAt(from))) from++;
  if (to < end && isLowSurrogate(text.charCodeAt(to))) to--;
  return (from > lineStart ? "…" : "") + text.slice(from, to) + (to < end ? "…" : "");
}

function scanText(text, task) {
  const regex = regexOf(task.source, task.flags);
  regex.lastIndex = 0;
  const hits = [];
  let line = 1;
  let lineStart = 0;
  let counted = 0;
  for (let match = regex.exec(text); match !== null; match = regex.exec(text)) {
    const start = match.index;
    for (let newline = text.indexOf("\n", counted); newline !== -1 && newline < start; newline = text.indexOf("\n", newline + 1)) {
      line++;
      lineStart = newline + 1;
    }
    counted = start;
    // the empty rest after a final line break is no line
    if (lineStart === text.length) break;
    if (hits.length === task.maxHits) return { hits, more: true };
    let lineEnd = text.indexOf("\n", start);
    if (lineEnd === -1) lineEnd = text.length;
    hits.push({ line, text: excerpt(text, lineStart, lineEnd, start, task.maxChars) });
    if (lineEnd === text.length) break;
    regex.lastIndex = lineEnd + 1;
  }
  return { hits, more: false };
}

function scanBytes(bytes, needle, task) {
  const hits = [];
  let line = 1;
  let lineStart = 0;
  let counted = 0;
  for (let start = bytes.indexOf(needle); start !== -1; ) {
    for (let newline = bytes.indexOf(10, counted); newline !== -1 && newline < start; newline = bytes.indexOf(10, newline + 1)) {
      line++;
      lineStart = newline + 1;
    }
    counted = start;
    if (hits.length === task.maxHits) return { hits, more: true };
    let lineEnd = bytes.indexOf(10, start);
    if (lineEnd === -1) lineEnd = bytes.length;
    const text = bytes.toString("utf8", lineStart, lineEnd);
    const shown = lineStart === 0 ? withoutBom(text) : text;
    hits.push({ line, text: excerpt(shown, 0, shown.length, Math.max(0, shown.indexOf(task.literal)), task.maxChars) });
    if (lineEnd === bytes.length) break;
    start = bytes.indexOf(needle, lineEnd + 1);
  }
  return { hits, more: false };
}

function scan(task) {
  const needle = task.literal === undefined ? undefined : Buffer.from(task.literal, "utf8");
  const results = [];
  for (const file of task.files) {
    started(file.id);
    if (file.text !== undefined) {
      results.push(scanText(file.text, task));
      continue;
    }
    const bytes = Buffer.from(task.buffer, file.offset, file.length);
    if (!isText(bytes)) results.push({ binary: true });
    else if (needle !== undefined) results.push(scanBytes(bytes, needle, task));
    else results.push(scanText(withoutBom(bytes.toString("utf8")), task));
  }
  return { id: task.id, results };
}

parentPort.on("message", (task) => {
  let reply;
  try {
    reply = task.kind === "paths" ? matchPaths(task) : scan(task);
  } catch (error) {
    reply = { id: task.id, error: String(error && error.message ? error.message : error) };
  }
  Atomics.store(state, 0, -1n);
  parentPort.postMessage(reply);
});
`;
