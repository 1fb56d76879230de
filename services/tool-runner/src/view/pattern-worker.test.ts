import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { describe, expect, it, onTestFinished } from "vitest";
import { PatternWorker } from "./pattern-worker.js";
import { PatternWorkers } from "./pattern-workers.js";

const tooLong = () => new AppError("PATTERN_TIMEOUT", "too long");
const encode = (text: string) => new TextEncoder().encode(text);
const scanOf = async (worker: PatternWorker, text: string | Uint8Array, source: string, flags = "gm", maxHits = 20, maxChars = 240) => {
  const file = { ...(typeof text === "string" ? { text } : { bytes: text }), tooLong };
  const [result] = await worker.scan({ source, flags, maxHits, maxChars, files: [file] });
  if (!result) throw new Error("no result");
  return result;
};

describe("PatternWorker", () => {
  it("never holds its process open: a process that searched exits by itself", async () => {
    const module = fileURLToPath(new URL("./pattern-worker.ts", import.meta.url));
    // the interval stands for the service's NATS connection while the search runs; once it is gone only the
    // worker is left, which must not keep the process
    const program = `const { PatternWorker } = await import(${JSON.stringify(module)});
      const alive = setInterval(() => undefined, 1000);
      const worker = new PatternWorker();
      const [result] = await worker.scan({ source: "b", flags: "gm", maxHits: 5, maxChars: 80, files: [{ text: "a\\nb\\n", tooLong: () => new Error("slow") }] });
      clearInterval(alive);
      console.log(JSON.stringify(result.hits));`;
    const script = path.join(await mkdtemp(path.join(tmpdir(), "ao-pattern-worker-")), "search.mjs");
    await writeFile(script, program);
    const child = spawn(process.execPath, ["--import", "tsx", script], { stdio: ["ignore", "pipe", "pipe"] });
    onTestFinished(() => void child.kill("SIGKILL"));
    let printed = "";
    let failed = "";
    child.stdout.on("data", (chunk: Buffer) => (printed += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (failed += chunk.toString()));
    const [code] = (await once(child, "exit")) as [number | null];
    expect({ code, printed: printed.trim(), failed }).toEqual({ code: 0, printed: JSON.stringify([{ line: 2, text: "b" }]), failed: "" });
  }, 30_000);

  it("reports one hit per matching line with 1-based line numbers, the line without its line break", async () => {
    const worker = new PatternWorker();
    const text = "alpha\r\nFR-001 login\nnothing\nFR-002 logout and FR-003\n\nlast FR-004";
    expect(await scanOf(worker, text, "FR-\\d+")).toMatchObject({
      hits: [
        { line: 2, text: "FR-001 login" },
        { line: 4, text: "FR-002 logout and FR-003" },
        { line: 6, text: "last FR-004" },
      ],
      more: false,
    });
  });

  it("ends on zero-length matches: ^ hits every line once, and the empty rest after a final line break is no line", async () => {
    const worker = new PatternWorker();
    const result = await scanOf(worker, "a\n\nb\n", "^");
    expect(result).toMatchObject({ hits: [{ line: 1, text: "a" }, { line: 2, text: "" }, { line: 3, text: "b" }] });
    expect(await scanOf(worker, "", "x*")).toMatchObject({ hits: [] });
  });

  it("stops a file at its hit bound and says there were more", async () => {
    const worker = new PatternWorker();
    const result = await scanOf(worker, "x\n".repeat(50), "x", "gm", 3);
    expect(result).toMatchObject({ hits: [{ line: 1 }, { line: 2 }, { line: 3 }], more: true });
  });

  it("cuts a long line around the match", async () => {
    const worker = new PatternWorker();
    const line = `${"a".repeat(1000)}NEEDLE${"b".repeat(1000)}`;
    const result = await scanOf(worker, line, "NEEDLE", "gm", 20, 100);
    if (result.binary) throw new Error("expected text");
    const shown = result.hits[0]?.text ?? "";
    expect(shown).toContain("NEEDLE");
    expect(shown.startsWith("…") && shown.endsWith("…")).toBe(true);
    expect(shown.length).toBeLessThanOrEqual(102);
  });

  it("decodes bytes it is handed, and calls NUL bytes or invalid UTF-8 binary", async () => {
    const worker = new PatternWorker();
    expect(await scanOf(worker, encode("héllo\nwörld"), "ö")).toMatchObject({ hits: [{ line: 2, text: "wörld" }] });
    expect(await scanOf(worker, new Uint8Array([104, 0, 105]), "h")).toMatchObject({ binary: true });
    expect(await scanOf(worker, new Uint8Array([0xff, 0xfe, 0x41]), "A")).toMatchObject({ binary: true });
  });

  it("searches a case-sensitive literal in the bytes as the text search would: lines, CRLF, a byte-order mark, multi-byte text", async () => {
    const worker = new PatternWorker();
    const text = "\uFEFFFR-1 on the first line\r\nnone\r\nnaïve FR-1 here, FR-1 twice\nFR-10\n";
    const [bytes, asText] = await worker.scan({
      source: "FR-1",
      flags: "gm",
      literal: "FR-1",
      maxHits: 20,
      maxChars: 240,
      files: [
        { bytes: encode(text), tooLong },
        { text: text.slice(1), tooLong },
      ],
    });
    const expected = { hits: [{ line: 1, text: "FR-1 on the first line" }, { line: 3, text: "naïve FR-1 here, FR-1 twice" }, { line: 4, text: "FR-10" }], more: false };
    expect(bytes).toEqual(expected);
    expect(asText).toEqual(expected);
  });

  it("answers each file of a batch in order, a binary one among them", async () => {
    const worker = new PatternWorker();
    const files = [encode("x\nneedle"), new Uint8Array([110, 0]), encode("needle")].map((bytes) => ({ bytes, tooLong }));
    const results = await worker.scan({ source: "needle", flags: "gm", literal: "needle", maxHits: 20, maxChars: 240, files });
    expect(results).toEqual([{ hits: [{ line: 2, text: "needle" }], more: false }, { binary: true }, { hits: [{ line: 1, text: "needle" }], more: false }]);
  });

  it("matches paths with the first pattern that matches any, and says which", async () => {
    const worker = new PatternWorker();
    const patterns = [
      { source: "^PRD\\.md$", flags: "" },
      { source: "^PRD\\.md$", flags: "i" },
    ];
    expect(await worker.paths({ patterns, paths: ["a.md", "prd.md", "Prd.md"] }, tooLong)).toMatchObject({ matched: [1, 2], which: 1 });
    expect(await worker.paths({ patterns, paths: ["PRD.md"] }, tooLong)).toMatchObject({ matched: [0], which: 0 });
  });

  it("stops a catastrophic regular expression with the task's own error, and is broken afterwards", async () => {
    const worker = new PatternWorker();
    const stalled = scanOf(worker, `${"a".repeat(30)}b`, "(a+)+$");
    const queued = scanOf(worker, "a", "a");
    await expect(stalled).rejects.toMatchObject({ code: "PATTERN_TIMEOUT" });
    await expect(queued).rejects.toMatchObject({ code: "PATTERN_TIMEOUT" });
    expect(worker.broken).toBe(true);
  });
});

describe("PatternWorkers", () => {
  it("gives the next call a fresh worker after one was stopped", async () => {
    const workers = new PatternWorkers(1);
    const stalled = workers.use((worker) => scanOf(worker, `${"a".repeat(30)}b`, "(a+)+$"));
    const next = workers.use((worker) => scanOf(worker, "one\ntwo", "two"));
    await expect(stalled).rejects.toMatchObject({ code: "PATTERN_TIMEOUT" });
    expect(await next).toMatchObject({ hits: [{ line: 2, text: "two" }] });
  });

  it("reuses an idle worker", async () => {
    const workers = new PatternWorkers(1);
    const first = await workers.use(async (worker) => worker);
    const second = await workers.use(async (worker) => worker);
    expect(second).toBe(first);
  });
});
