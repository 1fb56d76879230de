import { describe, expect, it } from "vitest";
import { encodeJson } from "@agent-orchestrator/shared/runtime";
import { type StoredResponse } from "@agent-orchestrator/shared/wire";
import { boundRecord } from "./response-store.js";

const record = (output_text: string, instructions: string | null): StoredResponse => ({
  id: "resp_r1",
  session_id: "s1",
  run_id: "r1",
  model: "idea-coach",
  project_id: "p1",
  created_at: 1,
  status: "completed",
  instructions,
  instructions_sha256: instructions === null ? null : "hash",
  previous_response_id: null,
  output_text,
  response_truncated: false,
  usage: null,
  error: null,
});

describe("boundRecord", () => {
  it("keeps a record that fits as it is", () => {
    const small = record("answer", "Be brief.");
    expect(boundRecord(small, 4096)).toEqual(small);
  });

  it("cuts the longer of answer and instructions until the record fits one KV value, and says the answer was cut", () => {
    const bounded = boundRecord(record("é".repeat(20_000), "Be brief."), 8_192);
    expect(encodeJson(bounded).byteLength).toBeLessThanOrEqual(8_192);
    expect(bounded.response_truncated).toBe(true);
    expect(bounded.output_text).toMatch(/^é+$/);
    expect(bounded.instructions).toBe("Be brief.");
    const long = boundRecord(record("answer", "x".repeat(20_000)), 8_192);
    expect(long).toMatchObject({ output_text: "answer", response_truncated: false, instructions_sha256: "hash" });
    expect(encodeJson(long).byteLength).toBeLessThanOrEqual(8_192);
  });
});
