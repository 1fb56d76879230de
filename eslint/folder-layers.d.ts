import type { Rule } from "eslint";

/** A package that declares its layers: its name and its units, bottom layer first. */
export interface DeclaredPackage {
  name: string;
  layers: string[][];
}

export function declaredLayers(rootDir: string): Record<string, DeclaredPackage>;

declare const folderLayers: Rule.RuleModule;
export default folderLayers;
