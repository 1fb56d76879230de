import { describe, expect, it } from "vitest";
import { z } from "zod";
import { firstIssue } from "./zod-issue.js";

describe("firstIssue", () => {
  it("names the path of the first issue and its message", () => {
    const result = z.object({ agent: z.object({ id: z.string() }) }).safeParse({ agent: { id: 1 } });
    expect(result.success || firstIssue(result.error, "(root)")).toBe("agent.id: Invalid input: expected string, received number");
  });

  it("names the root when the issue has no path", () => {
    const result = z.string().safeParse(1);
    expect(result.success || firstIssue(result.error, "(arguments)")).toMatch(/^\(arguments\): /);
  });
});
