import { describe, expect, it } from "vitest";
import { toolRowKey } from "./tool-row-key.js";

describe("toolRowKey", () => {
  it("keeps a subagent's call apart from a parent call with the same id", () => {
    expect(toolRowKey({ call_id: "call_1" })).toBe("call_1");
    expect(toolRowKey({ call_id: "call_1", parent_call_id: "call_7" })).toBe("call_7/call_1");
    expect(toolRowKey({ call_id: "call_1", parent_call_id: "call_7" })).not.toBe(toolRowKey({ call_id: "call_1" }));
  });
});
