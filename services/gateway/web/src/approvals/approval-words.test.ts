import { describe, expect, it } from "vitest";
import { endText, whoDecides } from "./approval-words.js";

describe("whoDecides", () => {
  it("names the requester and the owner, and every editor when the project lets editors decide", () => {
    expect(whoDecides("alice", "requester")).toBe("alice or the project's owner can decide.");
    expect(whoDecides("alice", "editors")).toBe("alice, the project's owner or any editor can decide.");
  });
});

describe("endText", () => {
  it("says who approved, and that the arguments were changed", () => {
    expect(endText({ outcome: "approve", by: "bob" })).toBe("Approved by bob");
    expect(endText({ outcome: "approve", by: "bob", arguments_edited: true })).toBe("Approved by bob with changed arguments");
    expect(endText({ outcome: "approve", by: "alice" }, true)).toBe("Approved by you");
  });

  it("says who rejected and with what words", () => {
    expect(endText({ outcome: "reject", by: "bob", message: "Not in main" })).toBe("Rejected by bob: “Not in main”");
    expect(endText({ outcome: "reject" }, true)).toBe("Rejected by you");
  });

  it("tells an expiry and a cancelled chat apart from a decision", () => {
    expect(endText({ outcome: "expire" })).toBe("Expired: nobody decided in time");
    expect(endText({ outcome: "cancel", by: "alice" })).toBe("Cancelled by alice: the chat was stopped");
  });
});
