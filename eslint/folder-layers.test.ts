import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RuleTester } from "eslint";
import tseslint from "typescript-eslint";
import { afterAll, describe, expect, it } from "vitest";
import folderLayers, { declaredLayers } from "./folder-layers.js";

RuleTester.describe = describe;
RuleTester.it = it;
RuleTester.itOnly = it.only;

const src = path.resolve("/repo/shared/src");
const options = [{ packages: { [src]: { name: "@example/shared", layers: [["wire"], ["runtime"], ["bmad", "testing"], ["index.ts"]] } } }];
const tester = new RuleTester({ languageOptions: { parser: tseslint.parser } });
const at = (file: string) => path.join(src, file);

tester.run("folder-layers", folderLayers, {
  valid: [
    { name: "an import from a lower layer", filename: at("runtime/logger.ts"), code: `import { subjects } from "../wire/subjects.js";`, options },
    { name: "an import inside the same unit, from a subfolder", filename: at("runtime/nats/retry.ts"), code: `import { createLogger } from "../logger.js";`, options },
    { name: "a root file above every folder", filename: at("index.ts"), code: `export { getOwn } from "./bmad/yaml.js";`, options },
    { name: "a package import", filename: at("wire/subjects.ts"), code: `import { z } from "zod";`, options },
    { name: "a test, which may use testing/ at any layer", filename: at("wire/subjects.test.ts"), code: `import { capture } from "../testing/capture.js";`, options },
    { name: "a file of a package that declares no folderLayers", filename: path.resolve("/repo/services/gateway/src/app.ts"), code: `import { x } from "./sessions/y.js";`, options },
    { name: "an import that leaves src/ (another check's concern)", filename: at("runtime/logger.ts"), code: `import data from "../../package.json";`, options },
  ],
  invalid: [
    {
      name: "a value import from a higher layer",
      filename: at("wire/registry-messages.ts"),
      code: `import { skillNamePattern } from "../bmad/skill-name.js";`,
      options,
      errors: [{ messageId: "upward", data: { from: "wire", to: "bmad", pkg: "@example/shared", where: "above it" } }],
    },
    {
      name: "a type-only import from a higher layer",
      filename: at("wire/agent.ts"),
      code: `import type { Logger } from "../runtime/logger.js";`,
      options,
      errors: [{ messageId: "upward", data: { from: "wire", to: "runtime", pkg: "@example/shared", where: "above it" } }],
    },
    {
      name: "a type re-export and an inline type import from a higher layer",
      filename: at("wire/agent.ts"),
      code: `export type { Logger } from "../runtime/logger.js";\ntype T = import("../runtime/logger.js").Logger;`,
      options,
      errors: [{ messageId: "upward" }, { messageId: "upward" }],
    },
    {
      name: "an import between two units on the same layer",
      filename: at("bmad/yaml.ts"),
      code: `import { fixture } from "../testing/fixture.js";`,
      options,
      errors: [{ messageId: "upward", data: { from: "bmad", to: "testing", pkg: "@example/shared", where: "on the same layer" } }],
    },
    {
      name: "a dynamic import of a root file above",
      filename: at("runtime/lazy.ts"),
      code: `const entry = await import("../index.js");`,
      options,
      errors: [{ messageId: "upward", data: { from: "runtime", to: "index.ts", pkg: "@example/shared", where: "above it" } }],
    },
    {
      name: "a folder imported without /index.js is still that folder",
      filename: at("wire/agent.ts"),
      code: `import { x } from "../runtime";`,
      options,
      errors: [{ messageId: "upward", data: { from: "wire", to: "runtime", pkg: "@example/shared", where: "above it" } }],
    },
    {
      name: "an import into a folder the list does not name",
      filename: at("runtime/logger.ts"),
      code: `import { x } from "../plugins/x.js";`,
      options,
      errors: [{ messageId: "unlisted", data: { unit: "plugins", pkg: "@example/shared" } }],
    },
    {
      name: "an import from a root file the list does not name",
      filename: at("config.ts"),
      code: `import { x } from "./wire/x.js";`,
      options,
      errors: [{ messageId: "unlisted", data: { unit: "config.ts", pkg: "@example/shared" } }],
    },
  ],
});

describe("declaredLayers", () => {
  const root = mkdtempSync(path.join(tmpdir(), "folder-layers-"));
  const write = (dir: string, manifest: object) => {
    mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, dir, "package.json"), JSON.stringify(manifest));
  };
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("checks only the workspaces that declare folderLayers", () => {
    write(".", { workspaces: ["layered", "cyclic"] });
    write("layered", { name: "layered", folderLayers: [["wire"], ["runtime"]] });
    write("cyclic", { name: "cyclic" });
    expect(declaredLayers(root)).toEqual({ [path.join(root, "layered", "src")]: { name: "layered", layers: [["wire"], ["runtime"]] } });
  });

  it("checks a second source folder a workspace declares apart (folderLayersOf)", () => {
    write(".", { workspaces: ["gateway"] });
    write("gateway", { name: "gateway", folderLayers: [["http"], ["app.ts"]], folderLayersOf: { "web/src": [["lib"], ["main.ts"]] } });
    expect(declaredLayers(root)).toEqual({
      [path.join(root, "gateway", "src")]: { name: "gateway", layers: [["http"], ["app.ts"]] },
      [path.join(root, "gateway", "web", "src")]: { name: "gateway web/src", layers: [["lib"], ["main.ts"]] },
    });
  });

  it("refuses a unit listed on two layers", () => {
    write(".", { workspaces: ["twice"] });
    write("twice", { name: "twice", folderLayers: [["wire"], ["runtime", "wire"]] });
    expect(() => declaredLayers(root)).toThrow(/"wire" appears twice/);
  });
});
