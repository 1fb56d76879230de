/**
 * A model answer is bounded (docs/security.md cases 126 and 127): a 100 MB streamed answer, through the four
 * services on the production permissions, is stopped at MODEL_ANSWER_MAX_BYTES and the orchestrator stops
 * reading it there (the model server sees its client hang up, having delivered no more than the answer cap and
 * what the kernel's socket buffers hold); the client gets MODEL_OUTPUT_TOO_LARGE, what it was streamed is exactly
 * what the session keeps, and the next turn works with a prompt within the model's window (the chat compacted). The orchestrator's
 * memory while it happens is a figure of bench measure 16, not a bound here: a peak resident size depends on
 * when the garbage collector runs, which a loaded machine changes.
 */
import { readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ChatRequestBody, ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { readSse } from "@agent-orchestrator/testing/sse";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const piece = "x".repeat(64 * 1024);
/** 100 MiB in 64 KiB chunks, made while they are sent */
const hugeAnswer: ScriptedTurn = { streamedText: { piece, times: 1_600 } };
const answerMaxBytes = 1024 * 1024;
let system: TestSystem;

/** What the user said last: the last message, or the last one a compaction's hand-off quotes. */
function lastSaid(request: ChatRequestBody): string {
  const last = withoutSystemNote(String(request.messages.at(-1)?.content ?? ""));
  return last.startsWith("[From the system: this conversation was compacted") ? (last.split("\n> ").at(-1) ?? "") : last;
}

function respond(request: ChatRequestBody): ScriptedTurn {
  if (String(request.messages[0]?.content).startsWith("You write the hand-off note")) return { text: "The user asked for a huge answer, which was cut." };
  const said = lastSaid(request);
  if (said === "one huge line") return { text: "y".repeat(30 * 1024 * 1024) };
  return said.startsWith("huge") ? hugeAnswer : { text: `fine: ${said}` };
}

/** The most TCP may hold between the model server and the orchestrator: both ends' largest socket buffers (Linux). */
function socketBufferBytes(): number {
  const largest = (name: string) => Number(readFileSync(`/proc/sys/net/ipv4/${name}`, "utf8").trim().split(/\s+/)[2]);
  return largest("tcp_rmem") + largest("tcp_wmem");
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

    const events = await readSse(await chat("huge answer please", sessionId, true));
    const last = events.at(-1);
    expect(last).toMatchObject({ event: "error", data: { error: { code: "MODEL_OUTPUT_TOO_LARGE" } } });
    const streamed = events.flatMap((event) => (event.event === "delta" ? [String(event.data["text"])] : [])).join("");
    const [kept, note] = streamed.split("\n\n[The answer was cut here");
    expect(Buffer.byteLength(kept ?? "")).toBe(answerMaxBytes);
    expect(note).toContain(`${answerMaxBytes} bytes`);
    // the orchestrator hung up: the server delivered the cap and at most what the sockets buffer, not 100 MiB
    const call = system.model.requests.at(-1)!;
    expect(await call.ended).toBe("abandoned");
    expect(call.sentBytes).toBeLessThan(socketBufferBytes() + 4 * answerMaxBytes);

    const view = (await (await fetch(`${system.url}/api/sessions/${sessionId}`)).json()) as {
      session: { status: string; messages: Array<{ role: string; content: string }> };
    };
    expect(view.session.status).toBe("failed");
    expect(view.session.messages.map((message) => message.role)).toEqual(["user", "assistant", "user", "assistant"]);
    expect(view.session.messages[3]?.content).toBe(streamed);

    const next = await chat("and now?", sessionId);
    expect(await next.json()).toMatchObject({ success: true, response: "fine: and now?" });
    // the kept answer (about 262,000 tokens of four bytes) is past the default window: the chat was compacted into a
    // hand-off, and the prompt is within the window less the answer's reserve (docs/models.md "Compaction")
    const prompt = system.model.requests.at(-1)?.body.messages ?? [];
    expect(Buffer.byteLength(JSON.stringify(prompt)) / 4).toBeLessThanOrEqual(128_000 - 8_192);
    expect(prompt.filter((message) => message.role === "system")).toHaveLength(1);
    expect(String(prompt[1]?.content)).toContain("The user asked for a huge answer, which was cut.");
    expect(String(prompt[1]?.content)).toContain("> and now?");
  }, 120_000);

  it("case 127: one streamed event of 30 MB is refused before the orchestrator holds it", async () => {
    expect((await chat("hello")).status).toBe(200);
    const response = await chat("one huge line");
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ success: false, error: { code: "MODEL_OUTPUT_TOO_LARGE", message: expect.stringContaining("one piece") } });
    // refused at the event cap (6 × the answer cap + 64 KiB): the orchestrator hung up before the event's end
    expect(await system.model.requests.at(-1)!.ended).toBe("abandoned");
  }, 60_000);
});
