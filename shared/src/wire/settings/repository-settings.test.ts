import { describe, expect, it } from "vitest";
import { ProjectSettings } from "./bmad-settings.js";

describe("a project's repository settings", () => {
  it("say whether its commands may use the network, and refuse a key they do not know", () => {
    expect(ProjectSettings.parse({ repository: { network: true } })).toEqual({ repository: { network: true } });
    expect(ProjectSettings.safeParse({ repository: { network: "yes" } }).success).toBe(false);
    expect(ProjectSettings.safeParse({ repository: { netwrok: true } }).success).toBe(false);
  });
});
