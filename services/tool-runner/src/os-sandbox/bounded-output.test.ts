import { describe, expect, it } from "vitest";
import { BoundedOutput } from "./bounded-output.js";

describe("BoundedOutput", () => {
  it("keeps everything up to the limit", () => {
    const output = new BoundedOutput(10);
    output.push(Buffer.from("hello "));
    output.push(Buffer.from("you!"));
    expect(output.text()).toBe("hello you!");
  });

  it("keeps the head and the tail of a longer stream and says how much was left out", () => {
    const output = new BoundedOutput(10);
    for (const chunk of ["start", "-middle-middle-", "the end"]) output.push(Buffer.from(chunk));
    expect(output.totalBytes).toBe(27);
    expect(output.text()).toBe("start\n[... 17 bytes omitted ...]\ne end");
  });

  it("never shows half a UTF-8 character at a cut", () => {
    const output = new BoundedOutput(8);
    output.push(Buffer.from("ab€€€€€€cd€"));
    const text = output.text();
    expect(text).not.toContain("\uFFFD");
    expect(text.startsWith("ab")).toBe(true);
    expect(text.endsWith("d€")).toBe(true);
  });
});
