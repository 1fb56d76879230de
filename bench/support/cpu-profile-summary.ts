/**
 * A flame summary of one `node --cpu-prof` profile: the functions that cost the most CPU by self time (their
 * own code) and by total time (with what they call), each with its place in the source. Places in the
 * repository's built code are mapped back to the TypeScript through the `.js.map` beside it; dependencies
 * are named from their package folder (their JavaScript, which is what the package ships), so no host path
 * appears in the summary. Native code (a socket write, a file system call) is named with the nearest
 * JavaScript function outside Node's internals that led to it, which says whose write or read it was.
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { dirname, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The parts of V8's .cpuprofile JSON that the summary reads. */
export interface CpuProfile {
  nodes: Array<{
    id: number;
    callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
    children?: number[];
  }>;
  /** microseconds on the monotonic clock (process.hrtime's) */
  startTime: number;
  endTime: number;
  /** the node on top of the stack at each sample */
  samples: number[];
  /** microseconds since the previous sample (the first: since startTime) */
  timeDeltas: number[];
}

export interface FunctionCost {
  name: string;
  /** file:line, relative to the repository or to the package */
  place: string;
  ms: number;
}

export interface ProfileSummary {
  /** sampled time in the window, and the part of it the process was not idle */
  sampledMs: number;
  busyMs: number;
  samples: number;
  self: FunctionCost[];
  total: FunctionCost[];
  /** the repository's own functions (services/, shared/) by total time */
  ownTotal: FunctionCost[];
}

/** A span of the monotonic clock in microseconds (process.hrtime.bigint() / 1000). */
export interface ProfileWindow {
  fromUs: number;
  toUs: number;
}

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
// V8's pseudo-frames: the process waiting, and the root of every stack
const notWork = new Set(["(idle)", "(root)"]);
// frames every stack passes through, which say nothing in a total-time list
const plumbing = new Set(["(program)", "(garbage collector)"]);

const sourceMaps = new Map<string, { map: SourceMap; folder: string } | undefined>();

function sourceMapOf(file: string): { map: SourceMap; folder: string } | undefined {
  if (!sourceMaps.has(file)) {
    const mapFile = `${file}.map`;
    const payload = existsSync(mapFile) ? (JSON.parse(readFileSync(mapFile, "utf8")) as ConstructorParameters<typeof SourceMap>[0]) : undefined;
    sourceMaps.set(file, payload ? { map: new SourceMap(payload), folder: resolve(dirname(mapFile), payload.sourceRoot ?? "") } : undefined);
  }
  return sourceMaps.get(file);
}

/** Where a frame is, as `path:line` (1-based): the TypeScript source where a source map says so. */
export function placeOf(url: string, lineNumber: number, columnNumber: number): string {
  if (url === "") return "(native)";
  if (!url.startsWith("file://")) return `${url}:${lineNumber + 1}`;
  const file = fileURLToPath(url);
  const inPackage = file.lastIndexOf("/node_modules/");
  if (inPackage >= 0) return `${file.slice(inPackage + "/node_modules/".length)}:${lineNumber + 1}`;
  const sourceMap = sourceMapOf(file);
  const mapped = sourceMap?.map.findEntry(lineNumber, columnNumber);
  const [path, line] = sourceMap && mapped && "originalSource" in mapped ? [resolve(sourceMap.folder, mapped.originalSource), mapped.originalLine + 1] : [file, lineNumber + 1];
  return `${relative(repoRoot, path)}:${line}`;
}

const isOwnCode = (place: string) => /^(services|shared)\//.test(place);

/** Self and total time per function over the samples in `window` (the whole profile without one). */
export function summarizeCpuProfile(profile: CpuProfile, window?: ProfileWindow, top = { self: 15, total: 10 }): ProfileSummary {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const keyOf = new Map<number, { key: string; name: string; place: string }>();
  const javaScriptPlace = (id: number) => {
    const { functionName, url, lineNumber, columnNumber } = (byId.get(id) as CpuProfile["nodes"][number]).callFrame;
    return { name: functionName || "(anonymous)", place: placeOf(url, lineNumber, columnNumber), inJavaScript: url.startsWith("file://") };
  };
  for (const node of profile.nodes) {
    let { name, place } = javaScriptPlace(node.id);
    if (place === "(native)" && !name.startsWith("(")) {
      let caller = parentOf.get(node.id);
      while (caller !== undefined && !javaScriptPlace(caller).inJavaScript) caller = parentOf.get(caller);
      if (caller !== undefined) place = `native, from \`${javaScriptPlace(caller).name}\` ${javaScriptPlace(caller).place}`;
    }
    keyOf.set(node.id, { key: `${name} ${place}`, name, place });
  }

  const self = new Map<string, FunctionCost>();
  const total = new Map<string, FunctionCost>();
  const add = (costs: Map<string, FunctionCost>, id: number, ms: number) => {
    const { key, name, place } = keyOf.get(id) as { key: string; name: string; place: string };
    const cost = costs.get(key) ?? { name, place, ms: 0 };
    cost.ms += ms;
    costs.set(key, cost);
  };
  let sampledMs = 0;
  let busyMs = 0;
  let samples = 0;
  let at = profile.startTime;
  profile.samples.forEach((id, index) => {
    at += profile.timeDeltas[index] ?? 0;
    // a sample stands for the time until the next one
    const ms = ((profile.timeDeltas[index + 1] ?? profile.endTime - at) || 0) / 1000;
    if (window && (at < window.fromUs || at > window.toUs)) return;
    const name = byId.get(id)?.callFrame.functionName ?? "";
    samples++;
    sampledMs += ms;
    if (notWork.has(name)) return;
    busyMs += ms;
    add(self, id, ms);
    const seen = new Set<string>();
    for (let frame: number | undefined = id; frame !== undefined; frame = parentOf.get(frame)) {
      const { key, name: frameName, place } = keyOf.get(frame) as { key: string; name: string; place: string };
      if (seen.has(key) || notWork.has(frameName) || plumbing.has(frameName) || place.startsWith("node:") || place.startsWith("(native") || place.startsWith("native")) continue;
      seen.add(key);
      add(total, frame, ms);
    }
  });
  const ranked = (costs: Map<string, FunctionCost>, count: number) => [...costs.values()].sort((left, right) => right.ms - left.ms).slice(0, count);
  const own = new Map([...total].filter(([, cost]) => isOwnCode(cost.place)));
  return { sampledMs, busyMs, samples, self: ranked(self, top.self), total: ranked(total, top.total), ownTotal: ranked(own, top.total) };
}

/** The summary as Markdown: a heading, what was profiled, then the two tables. */
export function formatProfileSummary(processName: string, summary: ProfileSummary, howTaken: string): string {
  const share = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1)} %`;
  const table = (costs: FunctionCost[], column: string) => [
    `| # | function | where | ${column} ms | of busy |`,
    "|---|---|---|---|---|",
    ...costs.map((cost, index) => `| ${index + 1} | \`${cost.name}\` | ${cost.place} | ${cost.ms.toFixed(0)} | ${share(cost.ms)} |`),
  ];
  return [
    `# CPU profile: ${processName}`,
    "",
    `${howTaken} Busy ${(summary.busyMs / 1000).toFixed(2)} s of ${(summary.sampledMs / 1000).toFixed(2)} s sampled (${summary.samples} samples); the rest was idle.`,
    "",
    "## Self time (the function's own code)",
    "",
    ...table(summary.self, "self"),
    "",
    "## Total time (with what it calls; Node's internals and native frames left out)",
    "",
    ...table(summary.total, "total"),
    "",
    "## Total time, the repository's own functions",
    "",
    ...table(summary.ownTotal, "total"),
    "",
  ].join("\n");
}
