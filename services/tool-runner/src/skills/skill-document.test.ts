import { describe, expect, it } from "vitest";
import { readSkillDocument } from "./skill-document.js";

describe("readSkillDocument", () => {
  it("reads name and description and strips the front matter", () => {
    expect(readSkillDocument("---\nname: tidy-desk\ndescription: 'Tidies: the desk'\n---\n# Tidy\nBody\n")).toEqual({
      name: "tidy-desk",
      description: "Tidies: the desk",
      body: "# Tidy\nBody\n",
    });
  });

  it("keeps a document without front matter whole", () => {
    expect(readSkillDocument("# Just text\n")).toEqual({ name: "", description: "", body: "# Just text\n" });
  });

  it("never evaluates a ---js block and drops invalid YAML with a note", () => {
    const js = readSkillDocument("---js\n{ name: (() => { throw new Error('ran') })() }\n---\nBody\n");
    expect(js).toMatchObject({ name: "", body: "Body\n", note: expect.stringContaining("not YAML") });
    expect(readSkillDocument("---\nname: [unclosed\n---\nBody\n")).toMatchObject({ body: "Body\n", note: expect.stringContaining("not valid YAML") });
  });
});
