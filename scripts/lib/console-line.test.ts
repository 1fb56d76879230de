import { describe, expect, it } from "vitest";
import { escapeForConsole, formatLogLine } from "./console-line.js";

describe("npm start's console lines", () => {
  it("cannot be forged or coloured by an agent_id with a newline and ANSI codes", () => {
    const agentId = "x\ninfo  turn completed \u001b[31mFAKE\u001b[0m";
    const line = formatLogLine(JSON.stringify({ level: 40, msg: `unknown agent ${agentId}`, agent_id: agentId }));
    expect(line).not.toMatch(/[\n\r\u001b]/);
    expect(line).toContain("unknown agent x\\u000ainfo");
    expect(line.startsWith("warn ")).toBe(true);
  });

  it("escapes a raw (non-JSON) line and bidi overrides too", () => {
    expect(escapeForConsole("a\rb\u202ec")).toBe("a\\u000db\\u202ec");
    expect(formatLogLine("plain \u001b[2J text")).toBe("plain \\u001b[2J text");
  });
});
