import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import express, { Router, type Response } from "express";
import { AppError } from "@agent-orchestrator/shared/runtime";
import { sendError } from "./http/send-error.js";

// the same from src/ (tests) and dist/ (the service): both sit one level below the package
const staticFolder = fileURLToPath(new URL("../web/static/", import.meta.url));
const scriptFolder = fileURLToPath(new URL("../web/dist/", import.meta.url));
const indexFile = `${staticFolder}index.html`;
const entryScript = `${scriptFolder}main.js`;

/**
 * Files keep their names across versions (there is no bundler to fingerprint them), so the browser must
 * ask again every time; the ETag makes that a cheap 304 when nothing changed.
 */
const revalidate = (response: Response): void => {
  response.set("cache-control", "no-cache");
};

const staticOptions = { index: false, redirect: false, dotfiles: "ignore", fallthrough: true, setHeaders: revalidate } as const;

const packageFile = createRequire(import.meta.url).resolve;

/** The version in the nearest package.json of package `name` above `file`. */
function packageVersion(name: string, file: string): string {
  for (let folder = dirname(file); folder !== dirname(folder); folder = dirname(folder)) {
    const manifest = join(folder, "package.json");
    if (!existsSync(manifest)) continue;
    const { name: found, version } = JSON.parse(readFileSync(manifest, "utf8")) as { name?: string; version?: string };
    if (found === name && version !== undefined) return version;
  }
  throw new Error(`No package.json of ${name} above ${file}`);
}

/**
 * The browser builds of the libraries the page renders markdown (markdown-it, DOMPurify) and line diffs
 * (jsdiff) with, from the packages themselves (no CDN: the page's CSP allows scripts from this origin only).
 * Each URL carries the package's version, so a browser may keep the file for a year and an upgrade still
 * reaches it; index.html names the same URLs.
 */
function vendorScripts(): Map<string, string> {
  const scripts = new Map<string, string>();
  for (const [name, browserBuild, urlName] of [
    ["markdown-it", packageFile("markdown-it/browser"), "markdown-it"],
    ["dompurify", packageFile("dompurify/dist/purify.min.js"), "purify"],
    // jsdiff's exports map names no browser build: it sits beside its package.json
    ["diff", join(dirname(packageFile("diff/package.json")), "dist/diff.min.js"), "diff"],
  ] as const) {
    scripts.set(`${urlName}-${packageVersion(name, browserBuild)}.min.js`, browserBuild);
  }
  return scripts;
}

/**
 * The web page: `index.html` at `/`, its style sheet and icon under `/assets/`, the browser modules
 * compiled by `tsc -b` from `web/src` under `/assets/js/` and the libraries they use under `/assets/vendor/`.
 * Only GET and HEAD are answered; anything not found falls through to the API's 404. No authentication:
 * the page itself asks for a token when the API wants one.
 */
export function webPage(): Router {
  const router = Router();
  router.get("/", (_request, response) => {
    if (!existsSync(entryScript)) {
      sendError(response, new AppError("SERVICE_UNAVAILABLE", "The web page is not built: run `npm run build` (tsc -b) and restart the gateway"));
      return;
    }
    revalidate(response);
    response.sendFile(indexFile);
  });
  // only the compiled modules: the declaration files tsc writes beside them are not for browsers
  router.use("/assets/js", (request, response, next) => (request.path.endsWith(".js") ? next() : next("router")), express.static(scriptFolder, staticOptions));
  const vendor = vendorScripts();
  router.get("/assets/vendor/:file", (request, response, next) => {
    const file = vendor.get(request.params.file);
    if (file === undefined) return next("router");
    response.sendFile(file, { headers: { "cache-control": "public, max-age=31536000, immutable" }, cacheControl: false });
  });
  router.use("/assets", express.static(staticFolder, staticOptions));
  return router;
}
