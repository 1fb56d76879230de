/**
 * The BMAD Method corpus the corpus tests read: official releases from npm, fetched at test time into the install
 * cache (bmad-install.ts) and read in place there, never copied into the repository.
 *
 * - `corpusInstall()`: 6.0.0-alpha.7 installed by its own installer with core, bmb, bmm and cis, a project root
 *   with the `bmad/` tree of the 6.0 alphas (compiled XML-in-markdown agents, `workflow.yaml` workflows, module
 *   `config.yaml` files, `_cfg` manifests). It is the published release nearest the alpha install BMAD's
 *   repository committed (installer 6.0.0-alpha.4, tag v6.0.0-alpha.5; neither is on npm): the same agents, menus
 *   and workflow folders, the agents differing only in how their front matter quotes.
 * - `corpusPackage()`: the same release's published package: the agent sources (`src/**` `*.agent.yaml`), the
 *   XML web bundles (`web-bundles/`) and the installer's test fixtures, valid and invalid agents.
 * - `corpusV4Package()`: 4.44.1's published package, 4.x in its source layout (`bmad-core/`, `expansion-packs/`).
 *
 * `scripts/test-prerequisites.ts` fetches them before the suite, so a test file finds them cached.
 */
import { defaultInstallUserName, ensureBmadInstall, ensureBmadPackage } from "./bmad-install.js";

export const corpusRelease = "6.0.0-alpha.7";
export const corpusV4Release = "4.44.1";

/** The installed project root (BMAD_ROOT); its config's `user_name` is `corpusUserName`. */
export const corpusInstall = (): Promise<string> => ensureBmadInstall({ version: corpusRelease, tool: "claude-code" });
export const corpusPackage = (): Promise<string> => ensureBmadPackage(corpusRelease);
export const corpusV4Package = (): Promise<string> => ensureBmadPackage(corpusV4Release);
export const corpusUserName = defaultInstallUserName;

/** The agents the install's modules hold, sorted: bmb's builder, 8 bmm, 5 cis, and core's bmad-master. */
export const corpusAgentIds = [
  "bmb/bmad-builder",
  "bmm/analyst",
  "bmm/architect",
  "bmm/dev",
  "bmm/pm",
  "bmm/sm",
  "bmm/tea",
  "bmm/tech-writer",
  "bmm/ux-designer",
  "cis/brainstorming-coach",
  "cis/creative-problem-solver",
  "cis/design-thinking-coach",
  "cis/innovation-strategist",
  "cis/storyteller",
  "core/bmad-master",
] as const;
