import { describe, expect, it } from "vitest";
import { matchParts } from "./match-parts.js";

describe("matchParts", () => {
  it("marks every hit, ignoring case, and keeps the text around it", () => {
    expect(matchParts("…the Brief and a brief…", "brief")).toEqual([
      { text: "…the ", hit: false },
      { text: "Brief", hit: true },
      { text: " and a ", hit: false },
      { text: "brief", hit: true },
      { text: "…", hit: false },
    ]);
  });

  it("leaves a match without the query (a hit the gateway cut) as plain text", () => {
    expect(matchParts("nothing here", "brief")).toEqual([{ text: "nothing here", hit: false }]);
  });
});
