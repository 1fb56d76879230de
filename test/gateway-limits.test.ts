/**
 * One client cannot exhaust the gateway (docs/security.md cases 111–122): floods of WebSocket
 * upgrades with and without tokens, of watches, of WebSocket chats and of MCP batches stay within small
 * configured caps while another user's chat goes through; wrong tokens from one address do not lock out
 * the users working from there; TRUSTED_PROXIES decides the address every per-address limit counts; the
 * server keeps idle connections longer than clients do. Real processes, a private nats-server, the
 * scripted model. Each test has its own users and its own loopback addresses (127.0.0.x), so none
 * depends on what another left behind.
 */
import { request as httpRequest, type IncomingHttpHeaders } from "node:http";
import { afterAll, beforeAll, describe, expect, it, onTestFinished, vi } from "vitest";
import WebSocket from "ws";
import { lastMessage, type ChatRequestBody, type ScriptedTurn } from "@agent-orchestrator/testing/http-model";
import { recordMessages, type SocketMessages } from "@agent-orchestrator/testing/socket-messages";
import { withoutSystemNote } from "@agent-orchestrator/testing/system-note";
import { startServiceProcess } from "@agent-orchestrator/testing/service-processes";
import { startTestSystem, type TestSystem } from "@agent-orchestrator/testing/test-system";

const users = [
  "bystander",
  "deadline",
  "flood",
  "total1",
  "total2",
  "total3",
  "total4",
  "total5",
  "chatty",
  "batcher",
  "doors",
  "watcher",
  "carol",
  "dave",
  "erin",
  "frank",
  "proxied1",
  "proxied2",
  "proxied3",
];
const tokenOf = (user: string) => `${user}-token-0000`;
const caps = { perMinute: 10, perAddress: 4, perUser: 3, total: 12, watchesPerSocket: 2, watchesPerUser: 3, authTimeoutMs: 2_000 };
let system: TestSystem;

function respond(request: ChatRequestBody): ScriptedTurn {
  return { text: `echo: ${withoutSystemNote(String(lastMessage(request)?.content ?? ""))}` };
}

beforeAll(async () => {
  system = await startTestSystem({
    responder: respond,
    env: {
      AUTH_TOKENS: users.map((user) => `${user}:${tokenOf(user)}`).join(","),
      HOST: "127.0.0.1",
      RATE_LIMIT_PER_MINUTE: String(caps.perMinute),
      WS_AUTH_TIMEOUT_MS: String(caps.authTimeoutMs),
      WS_MAX_CONNECTIONS: String(caps.total),
      WS_MAX_CONNECTIONS_PER_ADDRESS: String(caps.perAddress),
      WS_MAX_CONNECTIONS_PER_USER: String(caps.perUser),
      WS_MAX_WATCHES_PER_SOCKET: String(caps.watchesPerSocket),
      WS_MAX_WATCHES_PER_USER: String(caps.watchesPerUser),
      // the orchestrator's own cap on a user's concurrent turns is not what these tests count
      USER_MAX_CONCURRENT_TURNS: "0",
    },
  });
}, 60_000);

afterAll(() => system?.stop());

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** An HTTP request from a loopback address of the test's choosing (fetch cannot pick its source address). */
function call(
  path: string,
  options: { from?: string; token?: string; method?: string; body?: unknown; headers?: Record<string, string>; base?: string } = {},
): Promise<Answer> {
  const url = new URL(path, options.base ?? system.url);
  const body = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname,
        method: options.method ?? (body === undefined ? "GET" : "POST"),
        localAddress: options.from ?? "127.0.0.1",
        headers: {
          ...(body === undefined ? {} : { "content-type": "application/json" }),
          ...(options.token === undefined ? {} : { authorization: `Bearer ${options.token}` }),
          ...options.headers,
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }));
      },
    );
    outgoing.on("error", reject);
    outgoing.end(body);
  });
}

const json = (answer: Answer) => JSON.parse(answer.body) as Record<string, any>;

/** A chat over HTTP that must succeed: what "another user's chat goes through" checks. */
async function chatSucceeds(user: string, message: string, from = "127.0.0.1"): Promise<void> {
  const answer = await call("/api/chat", { from, token: tokenOf(user), body: { agent_id: "idea-coach", message } });
  expect(answer.status, answer.body).toBe(200);
  expect(json(answer)).toMatchObject({ success: true, response: `echo: ${message}` });
}

/** A socket that records every message it receives and how it closed. */
interface Client extends SocketMessages {
  socket: WebSocket;
}

type Upgrade = { ok: true; client: Client } | { ok: false; status: number; retryAfter: string | undefined; body: string };

/** Opens `/ws` from `from`, with a bearer token on the upgrade when given; resolves with the socket or the refusal. */
function openSocket(options: { from: string; token?: string; headers?: Record<string, string>; base?: string }): Promise<Upgrade> {
  const base = options.base ?? system.url;
  const socket = new WebSocket(`${base.replace("http", "ws")}/ws`, {
    localAddress: options.from,
    headers: { origin: base, ...(options.token ? { authorization: `Bearer ${options.token}` } : {}), ...options.headers },
  });
  const messages = recordMessages(socket);
  return new Promise((resolve, reject) => {
    socket.once("open", () => resolve({ ok: true, client: { socket, ...messages } }));
    socket.once("unexpected-response", (_request, response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk));
      response.on("end", () => resolve({ ok: false, status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"], body }));
    });
    socket.once("error", (error) => {
      if (socket.readyState !== WebSocket.CLOSED) reject(error);
    });
  });
}

const opened = (upgrade: Upgrade): Client => {
  if (!upgrade.ok) throw new Error(`upgrade refused: ${upgrade.status} ${upgrade.body}`);
  return upgrade.client;
};

/** Closes every socket and waits until each is gone, so the gateway has given its slots back. */
async function closeAll(clients: Client[]): Promise<void> {
  for (const client of clients) client.socket.close();
  await Promise.all(clients.map((client) => client.closed));
}

/** The gateway's open WebSockets, from its metrics. */
async function openSockets(): Promise<number> {
  const text = (await call("/metrics")).body;
  return Number(/^ao_websocket_connections (\d+)$/m.exec(text)?.[1] ?? Number.NaN);
}

/** A sign-in attempt: the status of `GET /api/agents` with `token`. */
const guess = (from: string, token: string, base?: string, headers: Record<string, string> = {}) =>
  call("/api/agents", { from, token, base, headers }).then((answer) => answer.status);

/** The JSON-RPC responses of an MCP answer, sent as JSON or as SSE `data:` lines. */
function rpcResponses(answer: Answer): Array<Record<string, any>> {
  const payloads = String(answer.headers["content-type"]).startsWith("text/event-stream")
    ? answer.body.split("\n").filter((line) => line.startsWith("data:")).map((line) => JSON.parse(line.slice(5)) as unknown)
    : [JSON.parse(answer.body) as unknown];
  return payloads.flat() as Array<Record<string, any>>;
}

describe("WebSocket connections", () => {
  it("case 111: closes a socket that has not signed in within WS_AUTH_TIMEOUT_MS (1008), and gives its slot back", async () => {
    const from = "127.0.0.11";
    const idle = await Promise.all(Array.from({ length: caps.perAddress }, () => openSocket({ from }).then(opened)));
    const signedIn = opened(await openSocket({ from: "127.0.0.12" }));
    signedIn.socket.send(JSON.stringify({ type: "auth", token: tokenOf("deadline") }));
    await signedIn.next((message) => message["type"] === "ready");
    for (const client of idle) {
      expect(await client.closed).toEqual({ code: 1008, reason: "authentication timeout" });
      expect(client.received).toContainEqual({ type: "error", error: { code: "UNAUTHORIZED", message: expect.stringContaining("Not signed in within 2 s") } });
    }
    // the address's slots are free again; the socket that signed in in time lives on and chats
    const again = opened(await openSocket({ from }));
    signedIn.socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message: "still here" }));
    expect(await signedIn.next((message) => message["type"] === "done")).toMatchObject({ response: "echo: still here" });
    expect(signedIn.socket.readyState).toBe(WebSocket.OPEN);
    await closeAll([again, signedIn]);
  });

  it("case 112: refuses upgrades from one address past WS_MAX_CONNECTIONS_PER_ADDRESS with 429, signed in or not, and counts closed sockets out", async () => {
    const from = "127.0.0.13";
    const flood = await Promise.all(Array.from({ length: 30 }, () => openSocket({ from })));
    const accepted = flood.filter((upgrade) => upgrade.ok).map(opened);
    const refused = flood.filter((upgrade) => !upgrade.ok);
    expect(accepted).toHaveLength(caps.perAddress);
    expect(refused.map((upgrade) => upgrade.status)).toEqual(new Array(30 - caps.perAddress).fill(429));
    expect(refused[0]).toMatchObject({ retryAfter: expect.any(String), body: expect.stringContaining("from this address") });
    // a token does not lift the address's cap
    expect(await openSocket({ from, token: tokenOf("bystander") })).toMatchObject({ ok: false, status: 429 });
    // while it floods, another user's chat goes through, over HTTP and over a socket of their own
    await chatSucceeds("bystander", "during the upgrade flood");
    const other = opened(await openSocket({ from: "127.0.0.14", token: tokenOf("bystander") }));
    other.socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message: "socket during the flood" }));
    expect(await other.next((message) => message["type"] === "done")).toMatchObject({ response: "echo: socket during the flood" });
    await closeAll([...accepted.slice(0, 1), other]);
    const replacement = await vi.waitFor(async () => opened(await openSocket({ from })), { timeout: 5_000, interval: 100 });
    await closeAll([...accepted.slice(1), replacement]);
  });

  it("case 113: refuses a user's sockets past WS_MAX_CONNECTIONS_PER_USER, whether the token comes on the upgrade or in an auth message", async () => {
    const token = tokenOf("flood");
    const mine = await Promise.all(Array.from({ length: caps.perUser }, (_unused, index) => openSocket({ from: `127.0.0.${15 + index}`, token }).then(opened)));
    const past = await openSocket({ from: "127.0.0.19", token });
    expect(past).toMatchObject({ ok: false, status: 429, body: expect.stringContaining("WebSockets of this user") });
    const late = opened(await openSocket({ from: "127.0.0.19" }));
    late.socket.send(JSON.stringify({ type: "auth", token }));
    expect(await late.closed).toEqual({ code: 1008, reason: "too many sockets" });
    expect(late.received).toContainEqual({ type: "error", error: { code: "RATE_LIMITED", message: expect.stringContaining("WebSockets of this user") } });
    await chatSucceeds("bystander", "during the user's flood");
    await closeAll(mine.slice(0, 1));
    const after = await vi.waitFor(
      async () => {
        const client = opened(await openSocket({ from: "127.0.0.19" }));
        client.socket.send(JSON.stringify({ type: "auth", token }));
        const answer = await Promise.race([client.next((message) => message["type"] === "ready"), client.closed.then(() => undefined)]);
        if (!answer) throw new Error("still refused");
        return client;
      },
      { timeout: 5_000, interval: 100 },
    );
    await closeAll([...mine.slice(1), after]);
  });

  it("case 114: refuses upgrades past WS_MAX_CONNECTIONS in all with 503 and retry-after; HTTP chats go on", async () => {
    await vi.waitFor(async () => expect(await openSockets()).toBe(0), { timeout: 5_000, interval: 100 });
    const upgrades: Upgrade[] = [];
    for (let index = 0; index < caps.total + 3; index++) {
      // spread over addresses and users so that only the total can be what refuses
      upgrades.push(await openSocket({ from: `127.0.0.${20 + (index % 4)}`, token: tokenOf(`total${1 + (index % 5)}`) }));
    }
    const accepted = upgrades.filter((upgrade) => upgrade.ok).map(opened);
    expect(accepted).toHaveLength(caps.total);
    expect(upgrades.slice(caps.total)).toEqual(new Array(3).fill(expect.objectContaining({ ok: false, status: 503, retryAfter: "5" })));
    expect(await openSockets()).toBe(caps.total);
    await chatSucceeds("bystander", "while the sockets are full");
    await closeAll(accepted);
    await vi.waitFor(async () => expect(await openSockets()).toBe(0), { timeout: 5_000, interval: 100 });
  });
});

describe("the per-user rate limit on every door", () => {
  it("case 115: counts WebSocket chats: past RATE_LIMIT_PER_MINUTE a chat gets RATE_LIMITED and starts no turn", async () => {
    const client = opened(await openSocket({ from: "127.0.0.24", token: tokenOf("chatty") }));
    const sent = caps.perMinute + 4;
    for (let index = 0; index < sent; index++) client.socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message: `chatty turn ${index}` }));
    await chatSucceeds("bystander", "while chatty floods");
    await vi.waitFor(() => {
      const ends = client.received.filter((message) => message["type"] === "done" || message["type"] === "error");
      expect(ends).toHaveLength(sent);
    }, { timeout: 15_000, interval: 100 });
    const refused = client.received.filter((message) => message["type"] === "error" && message["error"]["code"] === "RATE_LIMITED");
    expect(refused).toHaveLength(sent - caps.perMinute);
    expect(refused[0]?.["error"]["message"]).toMatch(/try again in \d+ s/);
    const turns = system.model.requests.filter((request) => /^chatty turn/.test(String(lastMessage(request.body)?.content ?? "")));
    expect(turns.length).toBeLessThanOrEqual(caps.perMinute);
    await closeAll([client]);
  });

  it("case 116: counts each message of an MCP batch: a batch of tools/call chat costs as many requests as it has calls", async () => {
    const batch = (size: number, tag: string) =>
      Array.from({ length: size }, (_unused, index) => ({
        jsonrpc: "2.0",
        id: index + 1,
        method: "tools/call",
        params: { name: "chat", arguments: { agent_id: "idea-coach", message: `${tag} ${index}` } },
      }));
    const mcp = (body: unknown) =>
      call("/mcp", { from: "127.0.0.25", token: tokenOf("batcher"), body, headers: { accept: "application/json, text/event-stream" } });
    const tooMany = await mcp(batch(caps.perMinute + 2, "batched too many"));
    expect(tooMany.status).toBe(429);
    expect(json(tooMany)).toMatchObject({ error: { code: "RATE_LIMITED" } });
    const fits = await mcp(batch(6, "batched"));
    expect(fits.status).toBe(200);
    const answers = rpcResponses(fits).map((response) => response["result"]?.["structuredContent"]?.["response"] as string | undefined);
    expect(answers.sort()).toEqual([0, 1, 2, 3, 4, 5].map((index) => `echo: batched ${index}`));
    // six of the ten are spent: another six do not fit, four do
    expect((await mcp(batch(6, "batched again"))).status).toBe(429);
    await chatSucceeds("bystander", "after the batches");
    const spent = system.model.requests.filter((request) => /^batched/.test(String(lastMessage(request.body)?.content ?? "")));
    expect(spent).toHaveLength(6);
    expect((await mcp(batch(4, "batched last"))).status).toBe(200);
  });

  it("case 117: one budget for /api JSON, SSE, /v1, the WebSocket and /mcp: past it each door answers RATE_LIMITED in its own shape", async () => {
    const token = tokenOf("doors");
    const from = "127.0.0.26";
    const client = opened(await openSocket({ from, token }));
    const apiChat = (message: string, accept = "application/json") => call("/api/chat", { from, token, body: { agent_id: "idea-coach", message }, headers: { accept } });
    const v1Chat = (message: string) => call("/v1/chat/completions", { from, token, body: { model: "idea-coach", messages: [{ role: "user", content: message }] } });
    const socketChat = async (message: string) => {
      client.socket.send(JSON.stringify({ type: "chat", agent_id: "idea-coach", message }));
      return client.next((event) => (event["type"] === "done" && event["response"] === `echo: ${message}`) || (event["type"] === "error" && !event["run_id"]));
    };
    const spent = await Promise.all([
      ...[1, 2, 3].map((index) => apiChat(`json ${index}`)),
      ...[1, 2, 3].map((index) => apiChat(`sse ${index}`, "text/event-stream")),
      ...[1, 2, 3].map((index) => v1Chat(`v1 ${index}`)),
    ]);
    expect(spent.map((answer) => answer.status)).toEqual(new Array(9).fill(200));
    expect(await socketChat("socket 1")).toMatchObject({ type: "done" });

    const json429 = await apiChat("json over");
    expect([json429.status, json(json429)]).toEqual([429, { success: false, error: { code: "RATE_LIMITED", message: expect.any(String) } }]);
    expect(Number(json429.headers["retry-after"])).toBeGreaterThan(0);
    const sse429 = await apiChat("sse over", "text/event-stream");
    expect([sse429.status, json(sse429)["error"]["code"]]).toEqual([429, "RATE_LIMITED"]);
    const v1429 = await v1Chat("v1 over");
    expect([v1429.status, json(v1429)["error"]]).toEqual([429, expect.objectContaining({ code: "rate_limit_exceeded" })]);
    const refused = await socketChat("socket over");
    expect(refused).toMatchObject({ type: "error", error: { code: "RATE_LIMITED" } });
    const mcp429 = await call("/mcp", { from, token, body: { jsonrpc: "2.0", id: 1, method: "ping" }, headers: { accept: "application/json, text/event-stream" } });
    expect(mcp429.status).toBe(429);
    await chatSucceeds("bystander", "while doors is limited");
    await closeAll([client]);
  });
});

describe("WebSocket watches", () => {
  it("case 118: refuses a watch past WS_MAX_WATCHES_PER_SOCKET or _PER_USER with a RATE_LIMITED error; unwatch and closing give slots back", async () => {
    const token = tokenOf("watcher");
    const session = json(await call("/api/chat", { from: "127.0.0.27", token, body: { agent_id: "idea-coach", message: "a session to watch" } }))["session_id"] as string;
    const first = opened(await openSocket({ from: "127.0.0.27", token }));
    const second = opened(await openSocket({ from: "127.0.0.28", token }));
    const watch = (client: Client) => client.socket.send(JSON.stringify({ type: "watch", session_id: session }));
    const refusal = (client: Client, count: number) =>
      vi.waitFor(() => {
        const errors = client.received.filter((message) => message["type"] === "error");
        expect(errors).toHaveLength(count);
        return errors.at(-1);
      });
    for (let index = 0; index <= caps.watchesPerSocket; index++) watch(first);
    expect(await refusal(first, 1)).toMatchObject({ error: { code: "RATE_LIMITED", message: expect.stringContaining("This socket watches 2 sessions") } });
    watch(second);
    watch(second);
    expect(await refusal(second, 1)).toMatchObject({ error: { code: "RATE_LIMITED", message: expect.stringContaining("This user watches 3 sessions") } });
    await chatSucceeds("bystander", "while watcher watches");
    first.socket.send(JSON.stringify({ type: "unwatch", session_id: session }));
    expect(await first.next((message) => message["type"] === "unwatched")).toEqual({ type: "unwatched", session_id: session, stopped: caps.watchesPerSocket });
    watch(second);
    // a later message on the same socket is answered: its cancel looks the session up over NATS, after the
    // watch's slot was taken or refused (at once, as it came)
    second.socket.send(JSON.stringify({ type: "cancel", session_id: session }));
    expect(await second.next((message) => message["type"] === "cancelled")).toEqual({ type: "cancelled", session_id: session, cancelled: false });
    expect(second.received.filter((message) => message["type"] === "error")).toHaveLength(1);
    // the watches still work: a new turn of the session reaches the second socket, once per watch
    await call("/api/chat", { from: "127.0.0.27", token, body: { agent_id: "idea-coach", message: "watched turn", session_id: session } });
    await vi.waitFor(() => expect(second.received.filter((message) => message["type"] === "done")).toHaveLength(2));
    await closeAll([first, second]);
  });
});

describe("failed sign-ins", () => {

  it("case 119: a neighbour guessing tokens does not lock out a user who signed in from the same address; the guesser learns nothing past the limit", async () => {
    const from = "127.0.0.31";
    expect(await guess(from, tokenOf("carol"))).toBe(200);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 15; attempt++) statuses.push(await guess(from, `wrong-guess-${attempt}`));
    expect(statuses).toEqual([...new Array(10).fill(401), ...new Array(5).fill(429)]);
    // carol goes on working, over HTTP, a WebSocket upgrade and an auth message
    expect(await guess(from, tokenOf("carol"))).toBe(200);
    await chatSucceeds("carol", "carol is not locked out", from);
    const upgraded = opened(await openSocket({ from, token: tokenOf("carol") }));
    const byMessage = opened(await openSocket({ from }));
    byMessage.socket.send(JSON.stringify({ type: "auth", token: tokenOf("carol") }));
    await byMessage.next((message) => message["type"] === "ready");
    await closeAll([upgraded, byMessage]);
    // a token never used from there waits out the guessing like a guess: answering it would tell the guesser it was right
    const unseen = await call("/api/agents", { from, token: tokenOf("dave") });
    expect(unseen.status).toBe(429);
    expect(Number(unseen.headers["retry-after"])).toBeGreaterThan(0);
    expect(await guess("127.0.0.33", tokenOf("dave"))).toBe(200);
  });

  it("case 120: a client retrying one stale token is one failure, not a lock-out of its address", async () => {
    const from = "127.0.0.32";
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 30; attempt++) statuses.push(await guess(from, "stale-token-0000"));
    expect(new Set(statuses)).toEqual(new Set([401]));
    expect(await guess(from, tokenOf("erin"))).toBe(200);
  });
});

describe("TRUSTED_PROXIES", () => {
  it("case 121: reads X-Forwarded-For only from a trusted proxy, and every per-address limit counts the address it names", async () => {
    // by default no proxy is trusted: a guesser rotating X-Forwarded-For is still one address
    const rotating: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) {
      rotating.push(await guess("127.0.0.43", `wrong-${attempt}`, undefined, { "x-forwarded-for": `198.51.100.${attempt}` }));
    }
    expect(rotating.slice(10)).toEqual([429, 429]);

    const gateway = startServiceProcess("gateway", { ...system.env, PORT: "0", TRUSTED_PROXIES: "127.0.0.41" });
    onTestFinished(async () => {
      await gateway.stop();
    });
    const line = await gateway.waitForLine((entry) => String(entry["msg"]).startsWith("gateway listening"));
    const base = String(line["url"]);
    const proxy = "127.0.0.41";
    const behind = (client: string) => ({ "x-forwarded-for": client });
    const guesses: number[] = [];
    for (let attempt = 0; attempt < 12; attempt++) guesses.push(await guess(proxy, `wrong-${attempt}`, base, behind(`203.0.113.66, 198.51.100.66`)));
    expect(guesses).toEqual([...new Array(10).fill(401), 429, 429]);
    // another client behind the same proxy is another address: its new token is checked
    expect(await guess(proxy, tokenOf("frank"), base, behind("198.51.100.77"))).toBe(200);
    // a peer that is not a trusted proxy cannot choose its address
    for (let attempt = 0; attempt < 12; attempt++) await guess("127.0.0.42", `wrong-${attempt}`, base, behind(`198.51.100.${100 + attempt}`));
    expect(await guess("127.0.0.42", tokenOf("proxied1"), base, behind("198.51.100.200"))).toBe(429);

    // the WebSocket caps count the forwarded address too
    const sockets = await Promise.all(
      Array.from({ length: caps.perAddress + 1 }, (_unused, index) =>
        openSocket({ from: proxy, base, token: tokenOf(`proxied${2 + (index % 2)}`), headers: behind("198.51.100.88") }),
      ),
    );
    expect(sockets.filter((upgrade) => !upgrade.ok)).toEqual([expect.objectContaining({ status: 429 })]);
    const elsewhere = opened(await openSocket({ from: proxy, base, token: tokenOf("frank"), headers: behind("198.51.100.89") }));
    await closeAll([...sockets.filter((upgrade) => upgrade.ok).map(opened), elsewhere]);
  });
});

describe("HTTP keep-alive", () => {
  it("case 122: tells clients it keeps idle connections 65 s (above Node's 5 s that raced the OpenAI SDK)", async () => {
    const answer = await call("/healthz");
    expect(answer.headers["keep-alive"]).toBe("timeout=65");
  });
});
