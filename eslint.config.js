// The linter runs on every TypeScript file CI ships (services, shared, web page, tests, bench, scripts) with
// type information, for the rules a compiler cannot give: a promise nobody awaits or handles loses its error.
import tseslint from "typescript-eslint";
import folderLayers, { declaredLayers } from "./eslint/folder-layers.js";

export default tseslint.config(
  { ignores: ["**/node_modules/**", "**/dist/**", "data/**", "bmad/**", "**/*.js", "**/*.d.ts"] },
  {
    files: ["**/*.ts"],
    plugins: { "@typescript-eslint": tseslint.plugin },
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        project: [
          "./shared/tsconfig.json",
          "./services/*/tsconfig.json",
          "./services/gateway/web/tsconfig.test.json",
          "./test/tsconfig.json",
        ],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/await-thenable": "error",
    },
  },
  {
    // the browser runs the web page's modules as tsc writes them (no bundler, no import map), so a package import
    // there must be erased: type-only (`import type`, never `import { type … }`, which leaves an import behind); the
    // libraries the page runs come from index.html's script tags
    files: ["services/gateway/web/src/**/*.ts"],
    ignores: ["**/*.test.ts"],
    rules: {
      "@typescript-eslint/no-restricted-imports": [
        "error",
        { patterns: [{ regex: "^[^.]", allowTypeImports: true, message: "The browser cannot load a package by name: import its types only (import type)" }] },
      ],
      "@typescript-eslint/no-import-type-side-effects": "error",
    },
  },
  {
    // folders are layers in each package that declares its order ("folderLayers" in its package.json)
    files: ["**/*.ts"],
    plugins: { local: { rules: { "folder-layers": folderLayers } } },
    rules: { "local/folder-layers": ["error", { packages: declaredLayers(import.meta.dirname) }] },
  },
);
