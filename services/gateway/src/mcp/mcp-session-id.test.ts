import { describe, expect, it } from "vitest";
import { canElicit, sessionIdFor } from "./mcp-session-id.js";

const initialize = (capabilities: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: { protocolVersion: "2025-11-25", capabilities, clientInfo: { name: "c", version: "1" } },
});

describe("the session id given at initialize", () => {
  it("says a client that declared form elicitation can be asked, by 2025-11-25's rule and 2025-06-18's empty object", () => {
    expect(canElicit(sessionIdFor(initialize({ elicitation: { form: {} } })))).toBe(true);
    expect(canElicit(sessionIdFor(initialize({ elicitation: {} })))).toBe(true);
  });

  it("says no for a client without elicitation, with URL mode only, or without a session id this server made", () => {
    expect(canElicit(sessionIdFor(initialize({ sampling: {} })))).toBe(false);
    expect(canElicit(sessionIdFor(initialize({ elicitation: { url: {} } })))).toBe(false);
    expect(canElicit(sessionIdFor({ method: "tools/list" }))).toBe(false);
    expect(canElicit(undefined)).toBe(false);
    expect(canElicit("3f0c1b9e-5f4e-4d0e-9a52-1c8f2a7d6b11")).toBe(false);
    expect(canElicit(["ao1.elicit.3f0c1b9e-5f4e-4d0e-9a52-1c8f2a7d6b11"])).toBe(false);
  });

  it("is new each time and only visible ASCII, as MCP requires", () => {
    const first = sessionIdFor(initialize({ elicitation: {} }));
    expect(first).not.toBe(sessionIdFor(initialize({ elicitation: {} })));
    expect(first).toMatch(/^[\x21-\x7e]+$/);
  });
});
