import { describe, expect, it } from "vitest";
import { contentTypeFor } from "./content-type.js";

describe("contentTypeFor", () => {
  it("serves markdown as text/markdown", () => {
    expect(contentTypeFor("{session-folder}/brief.MD")).toBe("text/markdown; charset=utf-8");
  });

  it("never serves a model-written HTML, SVG, XHTML or XML file as a page", () => {
    for (const name of ["x.xml", "x.XHTML", "x.xht", "x.xsl", "x.htm", "x.mathml", "x.rdf"]) expect(contentTypeFor(name)).toBe("text/plain; charset=utf-8");
    expect(contentTypeFor("x.html")).toBe("text/plain; charset=utf-8");
    expect(contentTypeFor("x.svg")).toBe("text/plain; charset=utf-8");
    expect(contentTypeFor("constructor")).toBe("text/plain; charset=utf-8");
  });
});
