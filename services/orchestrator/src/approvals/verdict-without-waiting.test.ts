import { describe, expect, it } from "vitest";
import { verdictWithoutWaiting } from "./verdict-without-waiting.js";

describe("verdictWithoutWaiting", () => {
  it("refuses a call that would wait, saying why, and leaves allow and deny as they are", () => {
    expect(verdictWithoutWaiting({ policy: "ask", reason: "save_output is set to ask in this project" }, "a subagent cannot wait for a member's decision")).toEqual({
      policy: "deny",
      reason: "save_output is set to ask in this project, and a subagent cannot wait for a member's decision",
    });
    expect(verdictWithoutWaiting({ policy: "allow", reason: "read_file only reads" }, "x")).toEqual({ policy: "allow", reason: "read_file only reads" });
    expect(verdictWithoutWaiting({ policy: "deny", reason: "r" }, "x")).toEqual({ policy: "deny", reason: "r" });
  });
});
