/**
 * A model answer is bounded (docs/security.md cases 126 and 127): a 100 MB streamed answer, through the four
 * services on the production permissions, is stopped at MODEL_ANSWER_MAX_BYTES without growing the
 * orchestrator, the client gets MODEL_OUTPUT_TOO_LARGE, what it was streamed is exactly what the session
 * keeps, and the next turn works with a prompt within the context budget.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatRequestBody, ScriptedTurn } from "./support/scripted-model.js";
import { readSse } from "./support/sse.js";
import { startTestSystem, type TestSystem } from "./support/test-system.js";

const piece = "x".repeat(64 * 1024);
/** 100 MiB in 64 KiB chunks, made while they are sent */
const hugeAnswer: ScriptedTurn = { streamedText: { piece, times: 1_600 } };
const answerMaxBytes = 1024 * 1024;
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  const said = String(request.messages.at(-1)?.content ?? "");
  if (said === "one huge line") return { text: "y".repeat(30 * 1024 * 1024) };
  return said.startsWith("huge") ? hugeAnswer : { text: `fine: ${said}` };
}

function orchestratorPid(): number | undefined {
  return system.processes.find((service) => service.name === "orchestrator")?.child.pid;
}

/** The orchestrator's peak resident memory since the last `resetPeakRss` (VmHWM), in bytes. */
function peakRss(): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${orchestratorPid()}/status`, "utf8"));
  return Number(match?.[1]) * 1024;
}

/** Starts the peak over from the resident memory now (Linux: `5` to clear_refs), so a case measures its own peak whatever ran before it. */
function resetPeakRss(): void {
  writeFileSync(`/proc/${orchestratorPid()}/clear_refs`, "5");
}

async function chat(message: string, sessionId?: string, stream = false): Promise<Response> {
  return fetch(`${system.url}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(stream ? { accept: "text/event-stream" } : {}) },
    body: JSON.stringify({ agent_id: "idea-coach", message, ...(sessionId ? { session_id: sessionId } : {}) }),
  });
}

beforeAll(async () => {
  system = await startTestSystem({ responder: respond, env: { MODEL_ANSWER_MAX_BYTES: String(answerMaxBytes) } });
}, 60_000);

afterAll(() => system?.stop());

describe("a huge model answer", () => {
  it("case 126: a 100 MB answer fails cleanly at the answer cap, the client and the session keep the same text, and the session stays usable", async () => {
    const first = await chat("hello");
    expect(first.status).toBe(200);
    const sessionId = String(((await first.json()) as Record<string, unknown>)["session_id"]);
    resetPeakRss();
    const before = peakRss();

    const events = await readSse(await chat("huge answer please", sessionId, true));
    const last = events.at(-1);
    expect(last).toMatchObject({ event: "error", data: { error: { code: "MODEL_OUTPUT_TOO_LARGE" } } });
    const streamed = events.flatMap((event) => (event.event === "delta" ? [String(event.data["text"])] : [])).join("");
    const [kept, note] = streamed.split("\n\n[The answer was cut here");
    expect(Buffer.byteLength(kept ?? "")).toBe(answerMaxBytes);
    expect(note).toContain(`${answerMaxBytes} bytes`);
    const grown = peakRss() - before;
    process.stdout.write(`orchestrator peak RSS: ${Math.round(before / 1e6)} MB before the 100 MB answer, grew by ${Math.round(grown / 1e6)} MB\n`);
    expect(grown).toBeLessThan(64 * 1024 * 1024);

    const view = (await (await fetch(`${system.url}/api/sessions/${sessionId}`)).json()) as {
      session: { status: string; messages: Array<{ role: string; content: string }> };
    };
    expect(view.session.status).toBe("failed");
    expect(view.session.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(view.session.messages[3]?.content).toBe(streamed);

    const next = await chat("and now?", sessionId);
    expect(await next.json()).toMatchObject({ success: true, response: "fine: and now?" });
    // the kept answer is larger than the context budget (100,000 tokens of about four bytes): the prompt carries its head and tail
    const prompt = system.model.requests.at(-1)?.body.messages ?? [];
    expect(Buffer.byteLength(JSON.stringify(prompt)) / 4).toBeLessThanOrEqual(100_000);
    const answers = prompt.filter((message) => message.role === "assistant").map((message) => String(message.content));
    expect(answers[0]).toBe("fine: hello");
    expect(answers[1]).toMatch(/^x+\n\[\.\.\. \d+ bytes omitted \.\.\.\]\n[\s\S]*\[The answer was cut here: it passed 1048576 bytes[^\]]*\]$/);
  }, 120_000);

  it("case 127: one streamed event of 30 MB is refused before the orchestrator holds it", async () => {
    // a first turn warms the orchestrator up (agent start, code paths), so the peak below is the event's alone
    expect((await chat("hello")).status).toBe(200);
    resetPeakRss();
    const before = peakRss();
    const response = await chat("one huge line");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ success: false, error: { code: "MODEL_OUTPUT_TOO_LARGE", message: expect.stringContaining("one piece") } });
    const grown = peakRss() - before;
    process.stdout.write(`orchestrator peak RSS grew by ${Math.round(grown / 1e6)} MB for a 30 MB event\n`);
    expect(grown).toBeLessThan(64 * 1024 * 1024);
  }, 60_000);
});
