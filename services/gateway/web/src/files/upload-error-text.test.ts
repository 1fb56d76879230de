import { describe, expect, it } from "vitest";
import { uploadErrorText } from "./upload-error-text.js";

describe("uploadErrorText", () => {
  it("says what to do about a file too large, a full project and a bad name", () => {
    expect(uploadErrorText({ code: "PAYLOAD_TOO_LARGE", message: "Uploads are limited to 1 MB", status: 413 })).toBe("Too large to upload. Uploads are limited to 1 MB.");
    expect(uploadErrorText({ code: "QUOTA_EXCEEDED", message: "Over 100 MB.", status: 507 })).toMatch(/^The project is full: Over 100 MB\. Delete files/);
    expect(uploadErrorText({ code: "QUOTA_EXCEEDED", message: "Over 50 MB.", status: 507 }, "chat")).toMatch(/^This chat's own space is full: Over 50 MB\. Start a new chat for this file/);
    expect(uploadErrorText({ code: "INVALID_PATH", message: "No .. segments.", status: 400 })).toMatch(/^This name cannot be stored: No \.\. segments\. Rename/);
    // a message without a full stop still reads as two sentences
    expect(uploadErrorText({ code: "INVALID_PATH", message: ".env is never stored", status: 400 })).toMatch(/^This name cannot be stored: \.env is never stored\. Rename/);
  });

  it("falls back on the status, then on the code and message", () => {
    expect(uploadErrorText({ code: "HTTP_413", message: "Payload Too Large", status: 413 })).toBe("Too large to upload. Payload Too Large.");
    expect(uploadErrorText({ code: "NETWORK_ERROR", message: "offline" })).toBe("NETWORK_ERROR: offline.");
  });
});
