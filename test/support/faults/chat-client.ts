/**
 * The fault tests' HTTP client: a chat turn streamed as SSE and read event by event as it arrives (so a
 * test can act in the middle of a turn), every event checked with the shared `RunEvent` schema.
 */
import { RunEvent } from "@agent-orchestrator/shared/wire";

export interface ChatBody {
  agent_id: string;
  message: string;
  session_id?: string;
}

/** A turn's events as they arrive; `done` settles with all of them once the stream ends. */
export interface StreamedTurn {
  /** the HTTP status (a turn refused at the start is a JSON error, not a stream) */
  status: number;
  events: RunEvent[];
  /** the JSON error body when the turn was refused */
  refused?: unknown;
  /** the `retry-after` header of a refusal */
  retryAfter?: string | null;
  /** resolves when an event matching `predicate` has arrived */
  until(predicate: (event: RunEvent) => boolean, timeoutMs?: number): Promise<RunEvent>;
  /** every event, once the stream has ended (or rejects when the stream broke) */
  done: Promise<RunEvent[]>;
}

export async function streamChat(gatewayUrl: string, body: ChatBody, headers: Record<string, string> = {}): Promise<StreamedTurn> {
  const response = await fetch(`${gatewayUrl}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
  const events: RunEvent[] = [];
  if (!response.headers.get("content-type")?.includes("text/event-stream")) {
    const refused: unknown = await response.json();
    return { status: response.status, events, refused, retryAfter: response.headers.get("retry-after"), until: () => Promise.reject(new Error(`turn refused: ${JSON.stringify(refused)}`)), done: Promise.resolve(events) };
  }
  const waiters = new Set<() => void>();
  let ended = false;
  const done = (async () => {
    const decoder = new TextDecoder();
    let buffered = "";
    try {
      for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
        buffered += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = buffered.indexOf("\n\n")) >= 0) {
          const block = buffered.slice(0, end);
          buffered = buffered.slice(end + 2);
          const data = block.split("\n").find((line) => line.startsWith("data:"));
          if (data) events.push(parseEvent(data.slice(5).trim()));
        }
        for (const wake of waiters) wake();
      }
    } finally {
      ended = true;
      for (const wake of waiters) wake();
    }
    return events;
  })();
  // a broken stream rejects `done`, which the caller awaits; `until` sees it through `ended`
  done.catch(() => undefined);
  return {
    status: response.status,
    events,
    done,
    async until(predicate, timeoutMs = 15_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const found = events.find(predicate);
        if (found) return found;
        if (ended) throw new Error(`the stream ended without the event: ${JSON.stringify(events.map((event) => event.type))}`);
        if (Date.now() > deadline) throw new Error(`no matching event in ${timeoutMs} ms: ${JSON.stringify(events.map((event) => event.type))}`);
        await new Promise<void>((resolve) => {
          const wake = () => {
            waiters.delete(wake);
            resolve();
          };
          waiters.add(wake);
          setTimeout(wake, 100);
        });
      }
    },
  };
}

/** One turn as JSON: `{status, body}`. */
export async function postChat(gatewayUrl: string, body: ChatBody): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${gatewayUrl}/api/chat`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** The final event of a finished turn. */
export const finalEvent = (events: RunEvent[]): RunEvent | undefined => events.findLast((event) => event.type === "done" || event.type === "error");

/** One SSE data line as a run event; the gateway's own last word on a broken stream is shown as it came. */
function parseEvent(data: string): RunEvent {
  const parsed = RunEvent.safeParse(JSON.parse(data));
  if (!parsed.success) throw new Error(`not a run event: ${data.slice(0, 500)}`);
  return parsed.data;
}
