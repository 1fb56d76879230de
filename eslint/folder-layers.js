// no dependency: one ordered list per package, and the unit the folder-cycle count measures; eslint-plugin-boundaries
// needs a TypeScript resolver and a policy per folder, and import/no-cycle skips type imports and cannot see a cycle
// between folders that has none between files.
//
// Folders are layers (ARCHITECTURE.md, "Folders are layers"). A unit is a folder directly under `<package>/src/`
// (its subfolders belong to it) or a file directly in `src/`. A package opts in by declaring its layers, bottom
// first, in its own package.json: `"folderLayers": [["wire"], ["runtime"], ["bmad", "testing"]]`.
// A source file may import (type imports included) only from a unit on a lower layer; an import from a unit on the
// same or a higher layer, or to or from a unit the list does not name, is an error. Only packages that declare
// `folderLayers` are checked: a package whose folders still form a cycle declares none until the cycle is gone.
// Tests (`*.test.ts`) are exempt, as in the folder-cycle count: they may use their package's `testing/` at any layer.
// A package with a second source folder (the gateway's web page, `web/src/`) declares its layers apart, by folder:
// `"folderLayersOf": { "web/src": [["lib"], …] }`; its units are the folders and files directly under that folder.
import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The declared layers of the root package's workspaces: `{ "<absolute source dir>": { name, layers } }` for each
 * workspace whose package.json has `folderLayers` (its `src/`) or `folderLayersOf` (the folders it names, as
 * `<package> <folder>`). Throws when a unit is listed twice.
 */
export function declaredLayers(rootDir) {
  const manifest = (dir) => JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8"));
  const packages = {};
  for (const workspace of manifest(rootDir).workspaces ?? []) {
    const dir = path.join(rootDir, workspace);
    const { name, folderLayers, folderLayersOf = {} } = manifest(dir);
    const sources = Object.entries(folderLayersOf).map(([folder, layers]) => [folder, `${name} ${folder}`, layers]);
    if (folderLayers !== undefined) sources.unshift(["src", name, folderLayers]);
    for (const [folder, label, layers] of sources) {
      const units = layers.flat();
      const twice = units.find((unit, index) => units.indexOf(unit) !== index);
      if (twice !== undefined) throw new Error(`${label}: "${twice}" appears twice in its folder layers`);
      packages[path.join(dir, folder)] = { name: label, layers };
    }
  }
  return packages;
}

/** The unit of a path relative to `src/`: its top folder, or a root file with `.js` read as the `.ts` it names. */
function unitOf(relative) {
  const [top = "", ...rest] = relative.split(path.sep);
  if (rest.length > 0) return top;
  if (top === "") return "index.ts";
  // "./view" names the folder's index; "./config.js" names config.ts
  return path.extname(top) === "" ? top : top.replace(/\.js$/, ".ts").replace(/\.jsx$/, ".tsx").replace(/\.mjs$/, ".mts");
}

export default {
  meta: {
    type: "problem",
    docs: { description: "A package's folders are layers: a unit imports only from the layers below it (package.json folderLayers)" },
    schema: [
      {
        type: "object",
        properties: { packages: { type: "object" } },
        required: ["packages"],
        additionalProperties: false,
      },
    ],
    messages: {
      upward: "{{from}} may import only from the layers below it, and {{to}} is {{where}} in {{pkg}}'s folderLayers (package.json; ARCHITECTURE.md, \"Folders are layers\")",
      unlisted: "{{unit}} is not in {{pkg}}'s folderLayers (package.json): add it at its layer",
    },
  },
  create(context) {
    const { packages } = context.options[0];
    const file = context.filename;
    const src = Object.keys(packages).find((dir) => file.startsWith(dir + path.sep));
    if (src === undefined || /\.test\.tsx?$/.test(file)) return {};
    const { name, layers } = packages[src];
    const layerOf = (unit) => layers.findIndex((layer) => layer.includes(unit));
    const from = unitOf(path.relative(src, file));

    const check = (node, specifier) => {
      if (typeof specifier !== "string" || !specifier.startsWith(".")) return;
      const target = path.resolve(path.dirname(file), specifier);
      if (target !== src && !target.startsWith(src + path.sep)) return;
      const to = unitOf(path.relative(src, target));
      if (to === from) return;
      const fromLayer = layerOf(from);
      const toLayer = layerOf(to);
      if (fromLayer < 0 || toLayer < 0) {
        context.report({ node, messageId: "unlisted", data: { unit: fromLayer < 0 ? from : to, pkg: name } });
      } else if (toLayer >= fromLayer) {
        context.report({ node, messageId: "upward", data: { from, to, pkg: name, where: toLayer === fromLayer ? "on the same layer" : "above it" } });
      }
    };

    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === "Literal" && check(node.source, node.source.value),
      TSImportType: (node) => check(node.source, node.source.value),
    };
  },
};
