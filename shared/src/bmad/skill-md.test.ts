import { describe, expect, it } from "vitest";
import { readSkillMd } from "./skill-md.js";

describe("readSkillMd", () => {
  it("reads name and description and strips the front matter", () => {
    expect(readSkillMd("---\nname: tidy-desk\ndescription: 'Tidies: the desk'\n---\n# Tidy\nBody\n")).toEqual({
      name: "tidy-desk",
      description: "Tidies: the desk",
      body: "# Tidy\nBody\n",
      heading: "Tidy",
      sections: new Map(),
    });
  });

  it("keeps a document without front matter whole", () => {
    expect(readSkillMd("# Just text\n")).toEqual({ name: "", description: "", body: "# Just text\n", heading: "Just text", sections: new Map() });
  });

  it("never evaluates a ---js block and drops invalid YAML with a note", () => {
    const js = readSkillMd("---js\n{ name: (() => { throw new Error('ran') })() }\n---\nBody\n");
    expect(js).toMatchObject({ name: "", body: "Body\n", note: expect.stringContaining("only YAML is read") });
    expect(readSkillMd("---\nname: [unclosed\n---\nBody\n")).toMatchObject({ body: "Body\n", note: expect.stringContaining("not valid YAML") });
  });
});
