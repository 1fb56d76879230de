import { describe, expect, it } from "vitest";
import { decodeEntities } from "./xml-entities.js";

describe("decodeEntities", () => {
  it("decodes the five XML entities", () => {
    expect(decodeEntities("&amp; &lt; &gt; &quot; &apos;")).toBe(`& < > " '`);
  });

  it("decodes decimal and hexadecimal references, including astral code points", () => {
    expect(decodeEntities("&#10003; &#x2714; &#x1F600;")).toBe("✓ ✔ 😀");
  });

  it("keeps unknown names, bare ampersands and invalid code points as written", () => {
    expect(decodeEntities("AT&T &nbsp; &unknown; &#0; &#xD800; &#x110000;")).toBe("AT&T &nbsp; &unknown; &#0; &#xD800; &#x110000;");
  });

  it("does not decode twice (&amp;lt; stays &lt;)", () => {
    expect(decodeEntities("&amp;lt;")).toBe("&lt;");
  });
});
