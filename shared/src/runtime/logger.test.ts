import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

describe("createLogger", () => {
  it("never writes an API key or a bearer token to a log line (docs/security.md case 57)", () => {
    const lines: string[] = [];
    const logger = createLogger("test", "info", { write: (line: string) => void lines.push(line) });
    logger.info({ apiKey: "sk-secret-1", headers: { authorization: "Bearer tok-2" }, client: { token: "tok-3" } }, "calling the model");
    const line = lines.join("");
    expect(line).toContain('"msg":"calling the model"');
    expect(line).toContain('"service":"test"');
    expect(line).not.toMatch(/sk-secret-1|tok-2|tok-3/);
    expect(line).toContain("[redacted]");
  });
});
